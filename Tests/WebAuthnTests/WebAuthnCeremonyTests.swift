import Foundation
import JOSE
import Testing

@testable import WebAuthn

/// Registration then authentication with the software authenticator, through the JSON
/// forms, for each algorithm and attestation; then each check of both ceremonies, failed
/// alone.
@Suite struct WebAuthnCeremonyTests {
    static let challenge = WebAuthnFixtures.challenge
    static let user = WebAuthnFixtures.user

    /// A relying party and an authenticator holding a verified credential.
    struct Flow {
        var relyingParty = WebAuthnFixtures.relyingParty()
        var authenticator: SoftwareAuthenticator
        var registration: RegistrationResponseJSON
        var credential: VerifiedCredential
        var record: WebAuthnCredentialRecord

        init(algorithm: SoftwareAuthenticator.Algorithm = .es256, attestation: SoftwareAuthenticator.Attestation = .none) throws {
            authenticator = SoftwareAuthenticator(algorithm: algorithm, attestation: attestation, origin: WebAuthnFixtures.origin)
            registration = try authenticator.register(relyingParty.creationOptions(challenge: challenge(1), user: user))
            credential = try relyingParty.verifyRegistration(registration, expectedChallenge: challenge(1))
            record = credential.record(userHandle: user.id)
        }

        /// A fresh registration by `authenticator` as it is now, for challenge 1.
        mutating func register(_ change: (inout PublicKeyCredentialCreationOptionsJSON) -> Void = { _ in }) throws
            -> RegistrationResponseJSON
        {
            var options = relyingParty.creationOptions(challenge: challenge(1), user: user)
            change(&options)
            return try authenticator.register(options)
        }

        /// An assertion by `authenticator` as it is now, for challenge 2.
        mutating func assert(_ change: (inout PublicKeyCredentialRequestOptionsJSON) -> Void = { _ in }) throws
            -> AuthenticationResponseJSON
        {
            var options = relyingParty.requestOptions(challenge: challenge(2))
            change(&options)
            return try authenticator.authenticate(options)
        }

        func verify(_ registration: RegistrationResponseJSON) throws -> VerifiedCredential {
            try relyingParty.verifyRegistration(registration, expectedChallenge: challenge(1))
        }

        func verify(_ assertion: AuthenticationResponseJSON, record: WebAuthnCredentialRecord? = nil) throws -> VerifiedAssertion {
            try relyingParty.verifyAuthentication(assertion, expectedChallenge: challenge(2), credential: record ?? self.record)
        }
    }

    /// `body` throws a rejection of `check`.
    static func expectRejected(_ check: WebAuthnError.Check, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected a rejection (\(check)), got success", sourceLocation: sourceLocation)
        } catch let error as WebAuthnError {
            #expect(error.check == check, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a WebAuthnError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases, SoftwareAuthenticator.Attestation.allCases)
    func registersThenAuthenticatesTwiceThroughJSON(
        algorithm: SoftwareAuthenticator.Algorithm, attestation: SoftwareAuthenticator.Attestation
    ) throws {
        let relyingParty = WebAuthnFixtures.relyingParty(userVerification: .required)
        var authenticator = SoftwareAuthenticator(algorithm: algorithm, attestation: attestation, origin: WebAuthnFixtures.origin)
        // The server sends options as JSON; the browser answers with JSON.
        let options = try JSONDecoder().decode(
            PublicKeyCredentialCreationOptionsJSON.self,
            from: JSONEncoder().encode(relyingParty.creationOptions(challenge: Self.challenge(1), user: Self.user))
        )
        let registration = try WebAuthnJSON.decode(
            RegistrationResponseJSON.self, from: JSONEncoder().encode(authenticator.register(options)))
        let credential = try relyingParty.verifyRegistration(registration, expectedChallenge: Self.challenge(1))
        #expect(credential.algorithm == algorithm.cose)
        #expect(credential.id == registration.rawId && credential.id.count == 32)
        #expect(try COSEKey(bytes: credential.publicKey).algorithm == algorithm.cose)
        #expect(credential.attestationFormat == (attestation == .none ? "none" : "packed"))
        #expect(credential.attestationType == (attestation == .none ? .none : .selfAttestation))
        #expect(credential.signCount == 0 && credential.transports == ["internal"] && credential.isDiscoverable == true)
        #expect(credential.isUserVerified && !credential.isBackupEligible && !credential.isBackedUp)
        #expect(credential.aaguid == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))

        var record = credential.record(userHandle: Self.user.id)
        for round in 1...2 {
            let options = relyingParty.requestOptions(
                challenge: Self.challenge(UInt8(10 + round)), allowCredentials: [.init(id: record.id)])
            let request = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: JSONEncoder().encode(options))
            let response = try WebAuthnJSON.decode(
                AuthenticationResponseJSON.self, from: JSONEncoder().encode(authenticator.authenticate(request)))
            let assertion = try relyingParty.verifyAuthentication(
                response, expectedChallenge: Self.challenge(UInt8(10 + round)), credential: record)
            #expect(assertion.credentialID == record.id && assertion.signCount == UInt32(round) && !assertion.signCountRegressed)
            #expect(assertion.isUserVerified && !assertion.isBackedUp && assertion.userHandle == Self.user.id)
            record.signCount = assertion.signCount
        }
    }

    // MARK: Registration, one check at a time

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases)
    func registrationRefusesAnotherChallenge(algorithm: SoftwareAuthenticator.Algorithm) throws {
        let flow = try Flow(algorithm: algorithm)
        Self.expectRejected(.challenge) {
            _ = try flow.relyingParty.verifyRegistration(flow.registration, expectedChallenge: Self.challenge(9))
        }
        Self.expectRejected(.challenge) {
            _ = try flow.relyingParty.verifyRegistration(flow.registration, expectedChallenge: Self.challenge(1).dropLast())
        }
        // A lost challenge (empty) never matches, even an empty one in the client data.
        var authenticator = SoftwareAuthenticator(algorithm: algorithm, origin: WebAuthnFixtures.origin)
        let empty = try authenticator.register(flow.relyingParty.creationOptions(challenge: Data(), user: Self.user))
        #expect(throws: WebAuthnError.rejected(.challenge, "the expected challenge is shorter than 16 bytes")) {
            try flow.relyingParty.verifyRegistration(empty, expectedChallenge: Data())
        }
    }

    @Test func registrationRefusesAnotherOriginAndAnotherRPID() throws {
        var flow = try Flow()
        flow.authenticator.origin = "https://example.org.evil.example"
        let elsewhere = try flow.register()
        Self.expectRejected(.origin) { _ = try flow.verify(elsewhere) }
        flow.authenticator.origin = "https://example.org:8443"
        let otherPort = try flow.register()
        Self.expectRejected(.origin) { _ = try flow.verify(otherPort) }
        flow.authenticator.origin = WebAuthnFixtures.origin
        let otherRP = try flow.register { $0.rp.id = "evil.example" }
        Self.expectRejected(.rpID) { _ = try flow.verify(otherRP) }
    }

    @Test func registrationRefusesAMissingUVOnlyWhenRequired() throws {
        var flow = try Flow()
        flow.authenticator.userVerified = false
        let registration = try flow.register()
        #expect(try flow.verify(registration).isUserVerified == false)
        flow.relyingParty.userVerification = .required
        Self.expectRejected(.userVerified) { _ = try flow.verify(registration) }
    }

    @Test func registrationRefusesAMissingUP() throws {
        var flow = try Flow()
        flow.authenticator.userPresent = false
        let registration = try flow.register()
        Self.expectRejected(.userPresent) { _ = try flow.verify(registration) }
    }

    @Test func registrationRefusesBackupStateWithoutEligibility() throws {
        var flow = try Flow()
        flow.authenticator.backedUp = true
        let registration = try flow.register()
        Self.expectRejected(.backupState) { _ = try flow.verify(registration) }
        flow.authenticator.backupEligible = true
        let synced = try flow.verify(try flow.register())
        #expect(synced.isBackupEligible && synced.isBackedUp)
    }

    @Test func registrationRefusesACredentialIDThatDiffersFromRawId() throws {
        let flow = try Flow()
        var registration = flow.registration
        registration.rawId = Data(repeating: 1, count: 32)
        registration.id = Base64URL.encode(registration.rawId)
        Self.expectRejected(.credentialID) { _ = try flow.verify(registration) }
        registration = flow.registration
        registration.id = Base64URL.encode(Data(repeating: 1, count: 32))
        Self.expectRejected(.credentialID) { _ = try flow.verify(registration) }
    }

    @Test func registrationRefusesTheClientDataOfAnAssertion() throws {
        var flow = try Flow()
        var registration = flow.registration
        let assertion = try flow.authenticator.authenticate(flow.relyingParty.requestOptions(challenge: Self.challenge(1)))
        registration.response.clientDataJSON = assertion.response.clientDataJSON
        Self.expectRejected(.type) { _ = try flow.verify(registration) }
    }

    @Test func registrationRefusesAnAlgorithmTheRelyingPartyDropped() throws {
        var flow = try Flow(algorithm: .edDSA)
        flow.relyingParty.algorithms = [.es256]
        Self.expectRejected(.algorithm) { _ = try flow.verify(flow.registration) }
        // The options then leave EdDSA out, and the authenticator cannot answer them.
        #expect(flow.relyingParty.creationOptions(challenge: Self.challenge(1), user: Self.user).pubKeyCredParams.map(\.alg) == [-7])
        Self.expectRejected(.algorithm) { _ = try flow.register() }
    }

    @Test func crossOriginCallsNeedAnAllowedTopOrigin() throws {
        var flow = try Flow()
        flow.authenticator.topOrigin = "https://example.com"
        let framed = try flow.register()
        Self.expectRejected(.topOrigin) { _ = try flow.verify(framed) }
        flow.relyingParty.topOrigins = ["https://partner.example"]
        Self.expectRejected(.topOrigin) { _ = try flow.verify(framed) }
        flow.relyingParty.topOrigins = ["https://example.com"]
        let credential = try flow.verify(framed)
        let assertion = try flow.assert()
        #expect(try flow.verify(assertion, record: credential.record()).signCount == 1)
    }

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases)
    func packedSelfAttestationMustVerify(algorithm: SoftwareAuthenticator.Algorithm) throws {
        let flow = try Flow(algorithm: algorithm, attestation: .packedSelf)
        let object = try CBORDecoder.decode(flow.registration.response.attestationObject, field: "x")
        func with(_ statement: CBORValue, format: String = "packed") -> RegistrationResponseJSON {
            var registration = flow.registration
            registration.response.attestationObject = CBOREncoder.encode(
                .map([
                    .init(.text("fmt"), .text(format)), .init(.text("attStmt"), statement), .init(.text("authData"), object["authData"]!),
                ]))
            return registration
        }
        var signature = try #require(object["attStmt"]?["sig"]?.bytesValue)
        signature[signature.count - 1] ^= 1
        let alg = CBORMapEntry(.text("alg"), .int(algorithm.cose.rawValue))
        Self.expectRejected(.attestation) { _ = try flow.verify(with(.map([alg, .init(.text("sig"), .bytes(signature))]))) }
        Self.expectRejected(.attestation) {
            _ = try flow.verify(with(.map([.init(.text("alg"), .int(-257)), object["attStmt"]!.mapValue![1]])))
        }
        Self.expectRejected(.attestation) { _ = try flow.verify(with(.map([alg]))) }
        Self.expectRejected(.attestation) { _ = try flow.verify(with(object["attStmt"]!, format: "none")) }
        Self.expectRejected(.attestation) { _ = try flow.verify(with(.map([]), format: "Packed")) }
        #expect(try flow.verify(with(.map([]), format: "none")).attestationType == AttestationType.none)
    }

    @Test func otherFormatsAreAcceptedUnverifiedOnlyWhenThePolicySaysSo() throws {
        var flow = try Flow()
        let object = try CBORDecoder.decode(flow.registration.response.attestationObject, field: "x")
        for format in ["fido-u2f", "tpm", "android-key", "android-safetynet", "apple", "compound"] {
            var registration = flow.registration
            registration.response.attestationObject = CBOREncoder.encode(
                .map([
                    .init(.text("fmt"), .text(format)),
                    .init(.text("attStmt"), .map([.init(.text("x5c"), .array([.bytes(Data([0x30]))]))])),
                    .init(.text("authData"), object["authData"]!),
                ]))
            flow.relyingParty.attestationPolicy = .verifiedOnly
            let error = try #require(throws: WebAuthnError.self) { try flow.verify(registration) }
            #expect(error.check == .attestation && "\(error)".contains("\(format) attestation is not verified"))
            flow.relyingParty.attestationPolicy = .acceptUnverified
            let credential = try flow.verify(registration)
            #expect(credential.attestationType == .unverified && credential.attestationFormat == format)
        }
    }

    // MARK: Authentication, one check at a time

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases)
    func authenticationRefusesAnotherChallengeOriginOrRPID(algorithm: SoftwareAuthenticator.Algorithm) throws {
        var flow = try Flow(algorithm: algorithm)
        let assertion = try flow.assert()
        #expect(try flow.verify(assertion).signCount == 1)
        Self.expectRejected(.challenge) {
            _ = try flow.relyingParty.verifyAuthentication(assertion, expectedChallenge: Self.challenge(1), credential: flow.record)
        }
        flow.authenticator.origin = "http://example.org"
        let insecure = try flow.assert()
        Self.expectRejected(.origin) { _ = try flow.verify(insecure) }
        flow.authenticator.origin = WebAuthnFixtures.origin
        flow.authenticator.rpID = "evil.example"
        let otherRP = try flow.assert { $0.rpId = "evil.example" }
        Self.expectRejected(.rpID) { _ = try flow.verify(otherRP) }
    }

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases)
    func authenticationRefusesMissingFlags(algorithm: SoftwareAuthenticator.Algorithm) throws {
        var flow = try Flow(algorithm: algorithm)
        flow.authenticator.userVerified = false
        let unverified = try flow.assert()
        #expect(try flow.verify(unverified).isUserVerified == false)
        flow.relyingParty.userVerification = .required
        Self.expectRejected(.userVerified) { _ = try flow.verify(unverified) }
        flow.authenticator.userPresent = false
        flow.authenticator.userVerified = true
        let absent = try flow.assert()
        Self.expectRejected(.userPresent) { _ = try flow.verify(absent) }
    }

    @Test(arguments: SoftwareAuthenticator.Algorithm.allCases)
    func authenticationRefusesABadSignature(algorithm: SoftwareAuthenticator.Algorithm) throws {
        var flow = try Flow(algorithm: algorithm)
        let assertion = try flow.assert()
        var flipped = assertion
        flipped.response.signature[flipped.response.signature.count - 1] ^= 0x01
        Self.expectRejected(.signature) { _ = try flow.verify(flipped) }
        var altered = assertion
        altered.response.authenticatorData[33 + 3] ^= 0x01  // the counter
        Self.expectRejected(.signature) { _ = try flow.verify(altered) }
        var otherClientData = assertion
        otherClientData.response.clientDataJSON = Data(
            String(decoding: assertion.response.clientDataJSON, as: UTF8.self)
                .replacingOccurrences(of: "\"crossOrigin\":false", with: "\"crossOrigin\":false,\"x\":1").utf8)
        Self.expectRejected(.signature) { _ = try flow.verify(otherClientData) }
        // Signed by another credential's key.
        let other = try Flow(algorithm: algorithm)
        var record = flow.record
        record.publicKey = other.record.publicKey
        Self.expectRejected(.signature) { _ = try flow.verify(assertion, record: record) }
    }

    @Test func authenticationRefusesAnotherCredentialOrUserHandle() throws {
        var flow = try Flow()
        let assertion = try flow.assert()
        var record = flow.record
        record.id = Data(repeating: 7, count: 32)
        Self.expectRejected(.credentialID) { _ = try flow.verify(assertion, record: record) }
        var mismatched = assertion
        mismatched.id = Base64URL.encode(Data(repeating: 7, count: 32))
        Self.expectRejected(.credentialID) { _ = try flow.verify(mismatched) }
        record = flow.record
        record.userHandle = Data("someone-else".utf8)
        Self.expectRejected(.userHandle) { _ = try flow.verify(assertion, record: record) }
        record.userHandle = nil
        #expect(try flow.verify(assertion, record: record).userHandle == Self.user.id)
    }

    @Test func authenticationRefusesTheClientDataOfARegistration() throws {
        var flow = try Flow()
        var assertion = try flow.assert()
        assertion.response.clientDataJSON = flow.registration.response.clientDataJSON
        Self.expectRejected(.type) {
            _ = try flow.relyingParty.verifyAuthentication(assertion, expectedChallenge: Self.challenge(1), credential: flow.record)
        }
    }

    @Test func backupEligibilityMayNotChangeButBackupStateMay() throws {
        var flow = try Flow()
        flow.authenticator.backupEligible = true
        let changed = try flow.assert()
        Self.expectRejected(.backupState) { _ = try flow.verify(changed) }
        var record = flow.record
        record.isBackupEligible = true
        #expect(try flow.verify(changed, record: record).isBackedUp == false)
        flow.authenticator.backedUp = true
        let backedUp = try flow.assert()
        #expect(try flow.verify(backedUp, record: record).isBackedUp == true)
        flow.authenticator.backupEligible = false
        let inconsistent = try flow.assert()
        Self.expectRejected(.backupState) { _ = try flow.verify(inconsistent, record: record) }
    }

    @Test func signCountRegressionIsReportedNotThrown() throws {
        var flow = try Flow()
        flow.authenticator.signCount = 41
        let forward = try flow.verify(try flow.assert())
        #expect(forward.signCount == 42 && !forward.signCountRegressed)
        flow.record.signCount = forward.signCount
        flow.authenticator.signCount = 41
        let same = try flow.verify(try flow.assert())
        #expect(same.signCount == 42 && same.signCountRegressed)
        flow.authenticator.signCount = 9
        #expect(try flow.verify(try flow.assert()).signCountRegressed)
        flow.authenticator.signCount = .max
        let wrapped = try flow.verify(try flow.assert())  // the counter wrapped to 0
        #expect(wrapped.signCount == 0 && wrapped.signCountRegressed)
        // An authenticator that keeps no counter: both zero, no regression.
        flow.record.signCount = 0
        flow.authenticator.signCount = .max
        #expect(try flow.verify(try flow.assert()).signCountRegressed == false)
    }

    @Test func malformedResponsesAreMalformed() throws {
        var flow = try Flow()
        var registration = flow.registration
        registration.type = "password"
        #expect(throws: WebAuthnError.malformed("type", "is not public-key")) { try flow.verify(registration) }
        registration = flow.registration
        registration.rawId = Data()
        registration.id = ""
        #expect(throws: WebAuthnError.malformed("rawId", "is empty")) { try flow.verify(registration) }
        registration = flow.registration
        registration.response.attestationObject = Data([0xa0])
        #expect((try? flow.verify(registration)) == nil)
        let error = try #require(throws: WebAuthnError.self) { try flow.verify(registration) }
        #expect(error.isMalformed && error.check == nil)
        registration = flow.registration
        registration.response.clientDataJSON = Data("{\"type\":\"webauthn.create\"}".utf8)
        #expect(throws: WebAuthnError.malformed("clientDataJSON", "challenge is missing")) { try flow.verify(registration) }
        var assertion = try flow.assert()
        assertion.response.authenticatorData = assertion.response.authenticatorData.dropLast()
        #expect(throws: WebAuthnError.malformed("authenticatorData", "is shorter than 37 bytes")) { try flow.verify(assertion) }
    }
}
