import Foundation
import JOSE
import Testing

@testable import WebAuthn

/// The WebAuthn Level 3 test vectors (WebAuthnTestVectors.swift): each registration is
/// verified for its challenge, and each authentication with the credential the
/// registration gave.
@Suite struct W3CTestVectorTests {
    static let hex = WebAuthnFixtures.hex

    /// example.org with the vectors' top origin allowed (two vectors are cross-origin).
    static func relyingParty(_ policy: AttestationPolicy) -> WebAuthnRelyingParty {
        WebAuthnRelyingParty(
            id: "example.org", name: "Example", origins: ["https://example.org"], topOrigins: ["https://example.com"],
            attestationPolicy: policy
        )
    }

    static func registration(_ vector: W3CTestVector) -> RegistrationResponseJSON {
        let id = hex(vector.credentialID)
        return RegistrationResponseJSON(
            id: Base64URL.encode(id), rawId: id,
            response: .init(clientDataJSON: hex(vector.registrationClientDataJSON), attestationObject: hex(vector.attestationObject))
        )
    }

    static func assertion(_ vector: W3CTestVector) -> AuthenticationResponseJSON {
        let id = hex(vector.credentialID)
        return AuthenticationResponseJSON(
            id: Base64URL.encode(id), rawId: id,
            response: .init(
                clientDataJSON: hex(vector.authenticationClientDataJSON), authenticatorData: hex(vector.authenticatorData),
                signature: hex(vector.signature)
            )
        )
    }

    /// Registers and authenticates; returns the credential.
    @discardableResult
    static func verify(_ vector: W3CTestVector, policy: AttestationPolicy) throws -> VerifiedCredential {
        let relyingParty = relyingParty(policy)
        let credential = try relyingParty.verifyRegistration(registration(vector), expectedChallenge: hex(vector.registrationChallenge))
        #expect(credential.id == hex(vector.credentialID))
        let assertion = try relyingParty.verifyAuthentication(
            assertion(vector), expectedChallenge: hex(vector.authenticationChallenge), credential: credential.record()
        )
        #expect(assertion.credentialID == credential.id)
        #expect(assertion.signCount == 0 && !assertion.signCountRegressed)
        #expect(assertion.isUserVerified == (hex(vector.authenticatorData)[32] & 0x04 != 0))
        return credential
    }

    @Test(arguments: ["none-es256", "packed-self-es256", "none-es256-crossOrigin", "none-es256-topOrigin", "none-es256-long-credential-id"])
    func verifiesUnderTheDefaultPolicy(name: String) throws {
        let vector = try #require(W3CTestVector.named(name))
        let credential = try Self.verify(vector, policy: .verifiedOnly)
        #expect(credential.algorithm == .es256)
        #expect(credential.attestationType == (name == "packed-self-es256" ? .selfAttestation : .none))
    }

    @Test func theNoneES256VectorGivesItsKnownCredential() throws {
        let vector = try #require(W3CTestVector.named("none-es256"))
        let credential = try Self.verify(vector, policy: .verifiedOnly)
        #expect(credential.aaguid.uuidString.lowercased() == "8446ccb9-ab1d-b374-750b-2367ff6f3a1f")
        #expect(credential.isBackupEligible && credential.isBackedUp && !credential.isUserVerified)
        #expect(WebAuthnFixtures.hexString(credential.publicKey).hasPrefix("a5010203262001215820afefa16f"))
        #expect(try Self.verify(try #require(W3CTestVector.named("none-es256-long-credential-id")), policy: .verifiedOnly).id.count == 1023)
    }

    @Test(arguments: [
        ("packed-es256", COSEAlgorithm.es256), ("packed-rs256", .rs256), ("packed-eddsa", .edDSA), ("tpm-es256", .es256),
        ("android-key-es256", .es256), ("apple-es256", .es256), ("fido-u2f-es256", .es256),
    ])
    func certificateAttestationIsRefusedByDefaultAndPassedOverWhenAllowed(name: String, algorithm: COSEAlgorithm) throws {
        let vector = try #require(W3CTestVector.named(name))
        let error = try #require(throws: WebAuthnError.self) {
            try Self.relyingParty(.verifiedOnly)
                .verifyRegistration(Self.registration(vector), expectedChallenge: Self.hex(vector.registrationChallenge))
        }
        #expect(error.check == .attestation)
        let credential = try Self.verify(vector, policy: .acceptUnverified)
        #expect(credential.algorithm == algorithm && credential.attestationType == .unverified)
    }

    @Test(arguments: ["packed-es384", "packed-es512", "packed-ed448"])
    func unsupportedAlgorithmsAreRejected(name: String) throws {
        let vector = try #require(W3CTestVector.named(name))
        let error = try #require(throws: WebAuthnError.self) {
            try Self.relyingParty(.acceptUnverified)
                .verifyRegistration(Self.registration(vector), expectedChallenge: Self.hex(vector.registrationChallenge))
        }
        #expect(error.check == .algorithm)
    }

    @Test func everyVectorIsCovered() {
        #expect(W3CTestVector.all.count == 15)
    }

    @Test func aVectorFailsForAnotherChallengeOrWithoutItsTopOrigin() throws {
        let vector = try #require(W3CTestVector.named("none-es256-topOrigin"))
        let registration = Self.registration(vector)
        var relyingParty = Self.relyingParty(.verifiedOnly)
        relyingParty.topOrigins = []
        #expect(
            throws: WebAuthnError.rejected(.topOrigin, "the call came from a cross-origin iframe, which the relying party does not allow")
        ) {
            try relyingParty.verifyRegistration(registration, expectedChallenge: Self.hex(vector.registrationChallenge))
        }
        #expect(throws: WebAuthnError.self) {
            try Self.relyingParty(.verifiedOnly).verifyRegistration(
                registration, expectedChallenge: Self.hex(vector.authenticationChallenge))
        }
        let rs256 = try #require(W3CTestVector.named("packed-rs256"))
        let credential = try Self.verify(rs256, policy: .acceptUnverified)
        var assertion = Self.assertion(rs256)
        assertion.response.signature[0] ^= 1
        #expect(throws: WebAuthnError.rejected(.signature, "the signature does not verify with the credential's public key")) {
            try Self.relyingParty(.acceptUnverified).verifyAuthentication(
                assertion, expectedChallenge: Self.hex(rs256.authenticationChallenge), credential: credential.record()
            )
        }
    }
}
