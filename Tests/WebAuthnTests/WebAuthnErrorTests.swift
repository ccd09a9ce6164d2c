import Foundation
import JOSE
import Testing

@testable import WebAuthn

/// Errors: malformed and rejected are told apart, checks compare as values, and no
/// description carries a challenge, a signature, key material or text from the response.
@Suite struct WebAuthnErrorTests {
    @Test func malformedAndRejectedAreToldApart() {
        let malformed = WebAuthnError.malformed("authenticatorData", "is shorter than 37 bytes")
        #expect(malformed.isMalformed && malformed.check == nil)
        #expect(malformed.description == "malformed authenticatorData: is shorter than 37 bytes")
        let rejected = WebAuthnError.rejected(.rpID, "the authenticator data is for another RP ID")
        #expect(!rejected.isMalformed && rejected.check == .rpID && rejected.check?.rawValue == "rp_id")
        #expect(rejected.description == "rejected (rp_id): the authenticator data is for another RP ID")
        #expect(WebAuthnError.rejected(.origin, "a") != WebAuthnError.rejected(.origin, "b"))
        #expect(WebAuthnError.Check.userVerified != .userPresent)
    }

    @Test func descriptionsCarryNoSecretsOrInput() throws {
        let relyingParty = WebAuthnFixtures.relyingParty(userVerification: .required)
        var authenticator = SoftwareAuthenticator(algorithm: .es256, attestation: .packedSelf, origin: "https://attacker.example/<script>")
        let challenge = WebAuthnFixtures.challenge(77)
        let registration = try authenticator.register(relyingParty.creationOptions(challenge: challenge, user: WebAuthnFixtures.user))
        authenticator.userVerified = false
        let assertion = try authenticator.authenticate(relyingParty.requestOptions(challenge: challenge))
        authenticator.origin = WebAuthnFixtures.origin
        let signed = try authenticator.authenticate(relyingParty.requestOptions(challenge: challenge))
        let secrets = [
            challenge, registration.rawId, registration.response.attestationObject, assertion.response.signature, signed.response.signature,
        ]
        var errors: [WebAuthnError] = []
        for expected in [challenge, WebAuthnFixtures.challenge(78)] {
            do { _ = try relyingParty.verifyRegistration(registration, expectedChallenge: expected) } catch { errors.append(error) }
            do {
                let record = WebAuthnCredentialRecord(
                    id: registration.rawId, publicKey: Data([0xa0]), signCount: 0, isBackupEligible: false)
                _ = try relyingParty.verifyAuthentication(signed, expectedChallenge: expected, credential: record)
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 4)
        for error in errors {
            let text = error.description
            #expect(!text.contains("attacker") && !text.contains("<script>"), "\(text)")
            for secret in secrets {
                #expect(!text.contains(Base64URL.encode(secret)) && !text.contains(WebAuthnFixtures.hexString(secret)), "\(text)")
            }
        }
    }
}
