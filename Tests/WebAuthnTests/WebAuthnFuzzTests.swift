import Foundation
import JOSE
import Testing

@testable import WebAuthn

/// Deterministic fuzzing of both ceremonies: valid registrations and assertions of the
/// software authenticator are mutated (bit flips, truncation, insertions, special bytes,
/// huge CBOR length prefixes, spliced chunks, random CBOR, random JSON documents and
/// members) at every layer — the JSON text, its members, the attestation object, the
/// authenticator data inside it, the client data, the signature. Every outcome must be a
/// ``WebAuthnError`` or a success whose signed content is the original's; a trap ends the
/// test run. Seeds are fixed, so a failure repeats. ~1,000 inputs per case (7,000 in all)
/// take under a second in a debug build.
@Suite struct WebAuthnFuzzTests {
    /// Per test case; WEBAUTHN_FUZZ_ITERATIONS=100000 for a longer run.
    static let iterations = ProcessInfo.processInfo.environment["WEBAUTHN_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 1000
    /// Mixed into every seed; WEBAUTHN_FUZZ_SEED=N explores other inputs.
    static let seed = ProcessInfo.processInfo.environment["WEBAUTHN_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0

    /// Outcomes, counted for the assertions at the end.
    struct Tally {
        var accepted = 0
        var malformed = 0
        var rejected: [String: Int] = [:]

        mutating func record(_ error: any Error) {
            guard let error = error as? WebAuthnError else {
                Issue.record("not a WebAuthnError: \(error)")
                return
            }
            if let check = error.check { rejected[check.rawValue, default: 0] += 1 } else { malformed += 1 }
        }
    }

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases, SoftwareAuthenticator.Attestation.allCases)
    func mutatedRegistrationsFailCleanly(algorithm: SoftwareAuthenticator.Algorithm, attestation: SoftwareAuthenticator.Attestation) throws
    {
        let relyingParty = WebAuthnFixtures.relyingParty()
        var authenticator = SoftwareAuthenticator(algorithm: algorithm, attestation: attestation, origin: WebAuthnFixtures.origin)
        let challenge = WebAuthnFixtures.challenge(1)
        let original = try authenticator.register(relyingParty.creationOptions(challenge: challenge, user: WebAuthnFixtures.user))
        let expected = try relyingParty.verifyRegistration(original, expectedChallenge: challenge)
        let originalJSON = try JSONEncoder().encode(original)
        let authData = try #require(CBORDecoder.decode(original.response.attestationObject, field: "x")["authData"]?.bytesValue)
        var fuzzer = WebAuthnFuzzer(
            seed: Self.seed ^ 0x5EED_0000 | UInt64(algorithm == .es256 ? 1 : 2) << 8 | UInt64(attestation == .none ? 1 : 2))
        var tally = Tally()

        for _ in 0..<Self.iterations {
            var response: RegistrationResponseJSON
            switch fuzzer.int(0..<9) {
            case 0, 1:
                do {
                    response = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: fuzzer.mutate(originalJSON))
                } catch {
                    tally.record(error)
                    continue
                }
            case 2:
                do {
                    response = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: fuzzer.mutateMember(of: originalJSON))
                } catch {
                    tally.record(error)
                    continue
                }
            case 3:
                response = original
                response.response.attestationObject = fuzzer.mutate(original.response.attestationObject)
            case 4:
                response = original
                let mutated = fuzzer.mutate(authData)
                response.response.attestationObject = fuzzer.attestationObject(
                    authData: mutated, original: original.response.attestationObject)
            case 5:
                response = original
                response.response.clientDataJSON = fuzzer.clientData(original.response.clientDataJSON)
            case 6:
                response = original
                response.response.attestationObject = Data(fuzzer.randomCBOR(depth: 0))
            case 7:
                do {
                    response = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(fuzzer.randomJSON(depth: 0).utf8))
                } catch {
                    tally.record(error)
                    continue
                }
            default:
                response = original
                response.rawId = fuzzer.mutate(original.rawId)
                if fuzzer.chance(2) { response.id = Base64URL.encode(response.rawId) }
            }
            do {
                let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge)
                tally.accepted += 1
                // fmt none signs nothing: any credential the authenticator data describes is
                // acceptable (the client may always send none). Packed self-attestation signs
                // it all: a self-attested result must be the original credential.
                if credential.attestationType == .selfAttestation {
                    #expect(
                        credential.id == expected.id && credential.publicKey == expected.publicKey
                            && credential.algorithm == expected.algorithm)
                    #expect(credential.signCount == expected.signCount && credential.aaguid == expected.aaguid)
                    #expect(
                        credential.isUserVerified == expected.isUserVerified && credential.isBackupEligible == expected.isBackupEligible)
                    #expect(response.response.clientDataJSON == original.response.clientDataJSON)
                }
            } catch {
                tally.record(error)
            }
        }
        #expect(tally.malformed > Self.iterations / 4 && tally.rejected.values.reduce(0, +) > Self.iterations / 20, "\(tally)")
    }

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases)
    func mutatedAssertionsFailCleanly(algorithm: SoftwareAuthenticator.Algorithm) throws {
        let relyingParty = WebAuthnFixtures.relyingParty()
        var authenticator = SoftwareAuthenticator(algorithm: algorithm, origin: WebAuthnFixtures.origin)
        let options = relyingParty.creationOptions(challenge: WebAuthnFixtures.challenge(1), user: WebAuthnFixtures.user)
        let registration = try authenticator.register(options)
        let record = try relyingParty.verifyRegistration(registration, expectedChallenge: WebAuthnFixtures.challenge(1))
            .record(userHandle: WebAuthnFixtures.user.id)
        let challenge = WebAuthnFixtures.challenge(2)
        let original = try authenticator.authenticate(relyingParty.requestOptions(challenge: challenge))
        #expect(try relyingParty.verifyAuthentication(original, expectedChallenge: challenge, credential: record).signCount == 1)
        let originalJSON = try JSONEncoder().encode(original)
        var fuzzer = WebAuthnFuzzer(seed: Self.seed ^ 0xA55E_0000 | UInt64(algorithm == .es256 ? 1 : 2))
        var tally = Tally()

        for _ in 0..<Self.iterations {
            var response = original
            switch fuzzer.int(0..<9) {
            case 0, 1:
                do {
                    response = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: fuzzer.mutate(originalJSON))
                } catch {
                    tally.record(error)
                    continue
                }
            case 2:
                do {
                    response = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: fuzzer.mutateMember(of: originalJSON))
                } catch {
                    tally.record(error)
                    continue
                }
            case 3:
                response.response.authenticatorData = fuzzer.mutate(original.response.authenticatorData)
            case 4:
                // ED set and a random CBOR item after the fixed part: the extension parser.
                var data = original.response.authenticatorData
                data[32] |= 0x80
                response.response.authenticatorData = data + Data(fuzzer.randomCBOR(depth: 0))
            case 5:
                response.response.clientDataJSON = fuzzer.clientData(original.response.clientDataJSON)
            case 6:
                response.response.signature = fuzzer.mutate(original.response.signature)
            case 7:
                do {
                    response = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: Data(fuzzer.randomJSON(depth: 0).utf8))
                } catch {
                    tally.record(error)
                    continue
                }
            default:
                response.response.userHandle = fuzzer.chance(4) ? nil : fuzzer.mutate(original.response.userHandle ?? Data())
                if fuzzer.chance(2) { response.rawId = fuzzer.mutate(original.rawId) }
            }
            do {
                let assertion = try relyingParty.verifyAuthentication(response, expectedChallenge: challenge, credential: record)
                tally.accepted += 1
                #expect(response.rawId == original.rawId && response.response.signature == original.response.signature)
                #expect(response.response.authenticatorData == original.response.authenticatorData)
                #expect(response.response.clientDataJSON == original.response.clientDataJSON)
                #expect(assertion.signCount == 1 && (assertion.userHandle == nil || assertion.userHandle == WebAuthnFixtures.user.id))
            } catch {
                tally.record(error)
            }
        }
        #expect(tally.malformed > Self.iterations / 4 && (tally.rejected["signature"] ?? 0) > Self.iterations / 20, "\(tally)")
    }

    /// Random inputs straight into the parsers.
    @Test func randomBytesIntoEveryParser() {
        var fuzzer = WebAuthnFuzzer(seed: Self.seed ^ 0xB17E5)
        for _ in 0..<Self.iterations {
            let bytes = fuzzer.chance(2) ? Data(fuzzer.randomCBOR(depth: 0)) : fuzzer.randomBytes(count: fuzzer.int(0..<200))
            _ = try? CBORDecoder.decode(bytes, field: "x")
            _ = try? COSEKey(bytes: bytes)
            _ = try? AttestationObject(bytes: bytes)
            _ = try? AuthenticatorData(bytes: Data(repeating: 0, count: 32) + Data([0xc1, 0, 0, 0, 0]) + Data(count: 18) + bytes)
            _ = try? CollectedClientData(json: Data(fuzzer.randomJSON(depth: 0).utf8))
        }
    }
}

/// The mutations, from a seeded generator.
struct WebAuthnFuzzer {
    /// SplitMix64: small, fast and deterministic.
    struct Generator: RandomNumberGenerator {
        private var state: UInt64

        init(seed: UInt64) {
            state = seed
        }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    var random: Generator

    init(seed: UInt64) {
        random = Generator(seed: seed)
    }

    mutating func int(_ range: Range<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    mutating func chance(_ oneIn: Int) -> Bool {
        int(0..<oneIn) == 0
    }

    mutating func randomBytes(count: Int) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) })
    }

    /// CBOR heads that claim far more than any input holds, and items WebAuthn refuses.
    static let hostileHeads: [[UInt8]] = [
        [0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x5b, 0x80, 0, 0, 0, 0, 0, 0, 0],
        [0x7b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0xbb, 0x40, 0, 0, 0, 0, 0, 0, 0], [0x5a, 0xff, 0xff, 0xff, 0xff], [0x99, 0xff, 0xff],
        [0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x5f], [0x9f], [0xbf], [0xff], [0xc0], [0xf7],
        [0xfb, 0, 0, 0, 0, 0, 0, 0, 0],
    ]
    static let specialBytes: [UInt8] = [
        0x00, 0x01, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1f, 0x20, 0x3f, 0x40, 0x5f, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xf4, 0xf6, 0xf7, 0xff,
    ]

    /// One random mutation of `input`.
    mutating func mutate(_ input: Data) -> Data {
        var bytes = [UInt8](input)
        switch int(0..<8) {
        case 0 where !bytes.isEmpty:
            for _ in 0..<int(1..<5) { bytes[int(0..<bytes.count)] ^= 1 << UInt8(int(0..<8)) }
        case 1 where !bytes.isEmpty:
            bytes = chance(2) ? Array(bytes.prefix(int(0..<bytes.count))) : Array(bytes.suffix(int(0..<bytes.count)))
        case 2:
            bytes.insert(contentsOf: randomBytes(count: int(1..<9)), at: int(0..<bytes.count + 1))
        case 3 where !bytes.isEmpty:
            for _ in 0..<int(1..<4) { bytes[int(0..<bytes.count)] = Self.specialBytes[int(0..<Self.specialBytes.count)] }
        case 4:
            let head = Self.hostileHeads[int(0..<Self.hostileHeads.count)]
            let at = int(0..<bytes.count + 1)
            if chance(2), at < bytes.count {
                bytes.replaceSubrange(at..<min(bytes.count, at + head.count), with: head)
            } else {
                bytes.insert(contentsOf: head, at: at)
            }
        case 5:
            bytes = randomCBOR(depth: 0)
        case 6 where !bytes.isEmpty:
            let start = int(0..<bytes.count)
            let chunk = bytes[start..<min(bytes.count, start + int(1..<64))]
            bytes.insert(contentsOf: chunk, at: int(0..<bytes.count + 1))
        case 7 where !bytes.isEmpty:
            let start = int(0..<bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + int(1..<16)))
        default:
            bytes.append(contentsOf: randomBytes(count: int(1..<4)))
        }
        return Data(bytes)
    }

    /// A random CBOR item: every major type, lengths that lie, deep nesting, refused kinds.
    mutating func randomCBOR(depth: Int) -> [UInt8] {
        if chance(12) { return Self.hostileHeads[int(0..<Self.hostileHeads.count)] + [UInt8](randomBytes(count: int(0..<4))) }
        let major = UInt8(int(0..<8))
        let nest = depth < 20 && chance(depth < 3 ? 2 : 5)
        switch major {
        case 0, 1:
            return head(major, chance(3) ? UInt64.random(in: 0 ... .max, using: &random) : UInt64(int(0..<300)))
        case 2, 3:
            let count = int(0..<40)
            let lie = chance(8) ? UInt64.random(in: 0 ... .max, using: &random) : UInt64(count)
            let words = [UInt8]("fmtattStmtauthDatalgsignone".utf8.prefix(count))
            let content = major == 3 && chance(2) ? words : [UInt8](randomBytes(count: count))
            return head(major, lie) + content
        case 4, 5:
            let count = nest ? int(0..<4) : 0
            var out = head(major, chance(10) ? UInt64(int(0..<1000)) : UInt64(count))
            for _ in 0..<count * (major == 5 ? 2 : 1) {
                out += chance(3) && major == 5 ? head(3, 3) + [UInt8]("fmt".utf8) : randomCBOR(depth: depth + 1)
            }
            return out
        case 6:
            return head(6, UInt64(int(0..<30))) + randomCBOR(depth: depth + 1)
        default:
            return [0xe0 | UInt8(int(0..<32))] + [UInt8](randomBytes(count: int(0..<9)))
        }
    }

    private func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        CBOREncoder.head(major: major, argument: argument)
    }

    /// An attestation object around `authData`: the original's statement, or a random one.
    mutating func attestationObject(authData: Data, original: Data) -> Data {
        guard chance(2), let object = try? CBORDecoder.decode(original, field: "x") else {
            let formats = ["none", "packed", "tpm", "fido-u2f", "x"]
            let signature = randomBytes(count: int(0..<80))
            let statement: CBORValue = chance(2) ? .map([]) : .map([.init(.text("alg"), .int(-7)), .init(.text("sig"), .bytes(signature))])
            return CBOREncoder.encode(
                .map([
                    .init(.text("fmt"), .text(formats[int(0..<formats.count)])),
                    .init(.text("attStmt"), statement),
                    .init(.text("authData"), .bytes(authData)),
                ]))
        }
        return CBOREncoder.encode(.map((object.mapValue ?? []).map { $0.key == .text("authData") ? .init($0.key, .bytes(authData)) : $0 }))
    }

    /// Client data mutated as bytes, as a random JSON document, or with one member replaced.
    mutating func clientData(_ original: Data) -> Data {
        switch int(0..<3) {
        case 0: return mutate(original)
        case 1: return Data(randomJSON(depth: 0).utf8)
        default: return mutateMember(of: original)
        }
    }

    static let keys = [
        "type", "challenge", "origin", "crossOrigin", "topOrigin", "id", "rawId", "response", "clientDataJSON", "attestationObject",
        "authenticatorData", "signature", "userHandle", "transports", "clientExtensionResults", "credProps", "rk",
    ]

    /// `json` (an object, maybe nested) with one member, at any depth, deleted or replaced by
    /// a random JSON value.
    mutating func mutateMember(of json: Data) -> Data {
        guard let object = try? JSONSerialization.jsonObject(with: json) else { return mutate(json) }
        let changed = mutateMember(object, depth: 0)
        return (try? JSONSerialization.data(withJSONObject: changed, options: [.fragmentsAllowed])) ?? mutate(json)
    }

    private mutating func mutateMember(_ value: Any, depth: Int) -> Any {
        guard var dictionary = value as? [String: Any], !dictionary.isEmpty else { return randomJSONObject() }
        let keys = dictionary.keys.sorted()
        let key = keys[int(0..<keys.count)]
        if let nested = dictionary[key], nested is [String: Any], chance(2) {
            dictionary[key] = mutateMember(nested, depth: depth + 1)
        } else if chance(4) {
            dictionary[key] = nil
        } else {
            dictionary[key] = randomJSONObject()
        }
        return dictionary
    }

    private mutating func randomJSONObject() -> Any {
        let text = randomJSON(depth: 2)
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? NSNull()
    }

    /// A random JSON text: usually valid, with odd numbers, escapes, deep nesting, huge
    /// strings and the members WebAuthn reads; sometimes cut short.
    mutating func randomJSON(depth: Int) -> String {
        let scalarOnly = depth > 6
        switch int(0..<(scalarOnly ? 5 : 9)) {
        case 0:
            return ["null", "true", "false"][int(0..<3)]
        case 1:
            return ["0", "-0", "1e999", "-1e-999", "123456789012345678901234567890", "0.5", "-7", "4294967296", "1E+2"][int(0..<9)]
        case 2:
            let pool = [
                "public-key", "webauthn.create", "webauthn.get", "https://example.org", "",
                "\\u0000", "\\ud800", "é✓🙂", "\\\"", "AQID", "A+/=", "====",
            ]
            if chance(60) { return "\"" + String(repeating: "A", count: 70_000) + "\"" }
            return "\"" + pool[int(0..<pool.count)] + "\""
        case 3:
            return "\"" + Base64URL.encode(randomBytes(count: int(0..<64))) + "\""
        case 4:
            return ["{", "[", "\"", "{\"type\":", "]", "nul", "{\"a\" 1}", "[1,]"][int(0..<8)]
        case 5:
            if chance(30) { return String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) }
            return "[" + (0..<int(0..<4)).map { _ in randomJSON(depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let members = (0..<int(0..<6)).map { _ in
                "\"\(Self.keys[int(0..<Self.keys.count)])\":\(randomJSON(depth: depth + 1))"
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }
}
