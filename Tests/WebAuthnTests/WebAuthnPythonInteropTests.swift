import Foundation
import JOSE
import Testing

@testable import WebAuthn

/// Interop with Python: a registration and an assertion made by soft-webauthn 0.1.4's
/// SoftWebauthnDevice (ES256, fmt none, UP without UV, counter from 1) and accepted by
/// fido2 1.2.0's Fido2Server, pasted from `scripts/webauthn-vectors.py generate`; and the
/// reverse: with WEBAUTHN_INTEROP_OUT=DIR, flows of the software authenticator are written
/// to DIR for `scripts/webauthn-vectors.py verify DIR` to check with Fido2Server.
@Suite struct WebAuthnPythonInteropTests {
    static let registrationChallenge = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
    static let authenticationChallenge = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
    static let registration = #"""
        {
          "id": "r-2epyGvdWngbZ5SaLqlAAVzXHh9BG-ESn5HUIJCdYU",
          "rawId": "r-2epyGvdWngbZ5SaLqlAAVzXHh9BG-ESn5HUIJCdYU",
          "type": "public-key",
          "response": {
            "clientDataJSON": "eyJ0eXBlIjogIndlYmF1dGhuLmNyZWF0ZSIsICJjaGFsbGVuZ2UiOiAiQUFFQ0F3UUZCZ2NJQ1FvTERBME9EeEFSRWhNVUZSWVhHQmthR3h3ZEhoOCIsICJvcmlnaW4iOiAiaHR0cHM6Ly9leGFtcGxlLm9yZyJ9",
            "attestationObject": "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikv6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LVBAAAAAAAAAAAAAAAAAAAAAAAAAAAAIK_tnqchr3Vp4G2eUmi6pQAFc1x4fQRvhEp-R1CCQnWFpQECAyYgASFYIDR2PSo60p-dKHh5KRSN1rT9AOmlZ6bPDQ8anyEe6pyXIlggsaXiJ4Mh5RLhHMUEbwDqslJHeb5NkRecBWW2Y4U07HE"
          },
          "clientExtensionResults": {}
        }
        """#
    static let assertion = #"""
        {
          "id": "r-2epyGvdWngbZ5SaLqlAAVzXHh9BG-ESn5HUIJCdYU",
          "rawId": "r-2epyGvdWngbZ5SaLqlAAVzXHh9BG-ESn5HUIJCdYU",
          "type": "public-key",
          "response": {
            "authenticatorData": "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LUBAAAAAQ",
            "clientDataJSON": "eyJ0eXBlIjogIndlYmF1dGhuLmdldCIsICJjaGFsbGVuZ2UiOiAiSUNFaUl5UWxKaWNvS1NvckxDMHVMekF4TWpNME5UWTNPRGs2T3p3OVBqOCIsICJvcmlnaW4iOiAiaHR0cHM6Ly9leGFtcGxlLm9yZyJ9",
            "signature": "MEUCIQCf4LucZyuwTXahp3iQ_zbGOhc8tINj7CdSkPo5RmWVsAIgBHe2UtFn0E9Dipokfb7tEoPugrqF7BaZ2VP5_wGvLvc",
            "userHandle": "dXNlci1oYW5kbGUtMDAwMQ"
          },
          "clientExtensionResults": {}
        }
        """#

    static func challenge(_ text: String) throws -> Data {
        try #require(Base64URL.decode(text))
    }

    @Test func acceptsSoftWebauthnsRegistrationAndAssertion() throws {
        let relyingParty = WebAuthnFixtures.relyingParty(userVerification: .discouraged)
        let registration = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(Self.registration.utf8))
        let credential = try relyingParty.verifyRegistration(
            registration, expectedChallenge: try Self.challenge(Self.registrationChallenge))
        #expect(credential.algorithm == .es256 && credential.attestationType == .none && credential.signCount == 0)
        #expect(!credential.isUserVerified && credential.transports.isEmpty && credential.isDiscoverable == nil)

        let assertion = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: Data(Self.assertion.utf8))
        let verified = try relyingParty.verifyAuthentication(
            assertion, expectedChallenge: try Self.challenge(Self.authenticationChallenge),
            credential: credential.record(userHandle: Data("user-handle-0001".utf8))
        )
        #expect(verified.signCount == 1 && !verified.signCountRegressed && !verified.isUserVerified)
        #expect(verified.userHandle == Data("user-handle-0001".utf8))
    }

    /// soft-webauthn never sets UV: a relying party that requires it refuses both.
    @Test func softWebauthnFailsARequirementOfUserVerification() throws {
        let relyingParty = WebAuthnFixtures.relyingParty(userVerification: .required)
        let registration = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(Self.registration.utf8))
        let error = try #require(throws: WebAuthnError.self) {
            try relyingParty.verifyRegistration(registration, expectedChallenge: try Self.challenge(Self.registrationChallenge))
        }
        #expect(error.check == .userVerified)
    }

    /// The flows `scripts/webauthn-vectors.py verify` checks, one file per algorithm and attestation.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["WEBAUTHN_INTEROP_OUT"] != nil))
    func writesSoftwareAuthenticatorFlowsForFido2() throws {
        let directory = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["WEBAUTHN_INTEROP_OUT"]))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let relyingParty = WebAuthnFixtures.relyingParty(userVerification: .required)
        let encoder = JSONEncoder()
        for algorithm in SoftwareAuthenticator.Algorithm.allCases {
            for attestation in SoftwareAuthenticator.Attestation.allCases {
                var authenticator = SoftwareAuthenticator(algorithm: algorithm, attestation: attestation, origin: WebAuthnFixtures.origin)
                let options = relyingParty.creationOptions(challenge: WebAuthnFixtures.challenge(1), user: WebAuthnFixtures.user)
                let registration = try authenticator.register(options)
                var record = try relyingParty.verifyRegistration(registration, expectedChallenge: WebAuthnFixtures.challenge(1)).record()
                var assertions: [Any] = []
                for round in [2, 3] as [UInt8] {
                    let assertion = try authenticator.authenticate(
                        relyingParty.requestOptions(challenge: WebAuthnFixtures.challenge(round)))
                    let verified = try relyingParty.verifyAuthentication(
                        assertion, expectedChallenge: WebAuthnFixtures.challenge(round), credential: record
                    )
                    record.signCount = verified.signCount
                    assertions.append(try JSONSerialization.jsonObject(with: encoder.encode(assertion)))
                }
                let flow: [String: Any] = [
                    "rpId": relyingParty.id,
                    "origin": WebAuthnFixtures.origin,
                    "registrationChallenge": Base64URL.encode(WebAuthnFixtures.challenge(1)),
                    "authenticationChallenges": [2, 3].map { Base64URL.encode(WebAuthnFixtures.challenge($0)) },
                    "registration": try JSONSerialization.jsonObject(with: encoder.encode(registration)),
                    "assertions": assertions,
                ]
                let name = "\(algorithm.cose)-\(attestation == .none ? "none" : "packed-self").json"
                let json = try JSONSerialization.data(withJSONObject: flow, options: [.prettyPrinted, .sortedKeys])
                try json.write(to: directory.appendingPathComponent(name))
            }
        }
    }
}
