import ContractKit
import ContractRunner
import ContractTestSupport
import Foundation
import Testing
import WebAuthn

/// What verify sends for `webauthn_…` matchers: one software authenticator per name in a run,
/// whose registration's key signs its later assertions.
@Suite struct WebAuthnAuthenticatorsTests {
    static let relyingParty = WebAuthnRelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    static func challenge() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    /// Creation options with a fresh challenge, as JSON (what a contract saves), and the challenge.
    static func creation(user: String = "alice") throws -> (json: JSONValue, challenge: Data) {
        let challenge = challenge()
        let options = relyingParty.creationOptions(challenge: challenge, user: .init(id: Data(user.utf8), name: user, displayName: user))
        return (try JSONValue(parsing: try JSONEncoder().encode(options)), challenge)
    }

    static func request() throws -> (json: JSONValue, challenge: Data) {
        let challenge = challenge()
        return (try JSONValue(parsing: try JSONEncoder().encode(relyingParty.requestOptions(challenge: challenge))), challenge)
    }

    static func spec(_ ceremony: WebAuthnSpec.Ceremony, _ name: String) -> WebAuthnSpec {
        WebAuthnSpec(
            ceremony, options: ceremony == .registration ? "{{creation}}" : "{{request}}", origin: "https://example.com",
            authenticator: name)
    }

    func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
        try WebAuthnJSON.decode(type, from: Data(value.description.utf8))
    }

    @Test func aNameKeepsItsKeyFromItsRegistrationToItsAssertions() throws {
        let authenticators = WebAuthnAuthenticators()
        let mia = try Self.creation(user: "mia")
        let miaCredential = try Self.relyingParty.verifyRegistration(
            decode(RegistrationResponseJSON.self, authenticators.credential(for: Self.spec(.registration, "mia-phone"), options: mia.json)),
            expectedChallenge: mia.challenge
        )
        let bob = try Self.creation(user: "bob")
        let bobCredential = try Self.relyingParty.verifyRegistration(
            decode(RegistrationResponseJSON.self, authenticators.credential(for: Self.spec(.registration, "bob-key"), options: bob.json)),
            expectedChallenge: bob.challenge
        )
        #expect(miaCredential.id != bobCredential.id && miaCredential.publicKey != bobCredential.publicKey)
        #expect(authenticators.credentialID("mia-phone") == miaCredential.id)

        var record = miaCredential.record(userHandle: Data("mia".utf8))
        for count in 1...2 {
            let request = try Self.request()
            let sent = try decode(
                AuthenticationResponseJSON.self, authenticators.credential(for: Self.spec(.assertion, "mia-phone"), options: request.json))
            let assertion = try Self.relyingParty.verifyAuthentication(sent, expectedChallenge: request.challenge, credential: record)
            #expect(assertion.signCount == UInt32(count) && !assertion.signCountRegressed)
            record.signCount = assertion.signCount
            // Not bob's key.
            #expect(throws: WebAuthnError.self) {
                try Self.relyingParty.verifyAuthentication(sent, expectedChallenge: request.challenge, credential: bobCredential.record())
            }
        }
    }

    @Test func requestsOfOneRunShareTheAuthenticators() throws {
        let contract = try loadContract(PasskeyContracts.ceremonies)
        let authenticators = WebAuthnAuthenticators()
        let creation = try Self.creation()
        let registration = try contract.interactions[1].request.render(with: ["creation": creation.json], authenticators: authenticators)
        let registrationBody = try #require(registration.body)
        let registered = try JSONValue(parsing: registrationBody)["credential"]
        // EdDSA, packed self-attestation, no UV: as the matcher says.
        var relyingParty = Self.relyingParty
        relyingParty.attestationPolicy = .verifiedOnly
        let credential = try relyingParty.verifyRegistration(
            decode(RegistrationResponseJSON.self, try #require(registered)), expectedChallenge: creation.challenge)
        #expect(credential.algorithm == .edDSA && credential.attestationType == .selfAttestation && !credential.isUserVerified)

        // Another file's sequence in the same run signs with that key.
        let request = try Self.request()
        let login = try contract.interactions[3].request.render(with: ["request": request.json], authenticators: authenticators)
        let loginBody = try #require(login.body)
        let sent = try #require(try JSONValue(parsing: loginBody)["credential"])
        let assertion = try Self.relyingParty.verifyAuthentication(
            decode(AuthenticationResponseJSON.self, sent), expectedChallenge: request.challenge, credential: credential.record())
        #expect(assertion.isUserVerified)
        // `save: { used: request.json.credential }` keeps what was sent, for a replay.
        #expect(contract.interactions[3].captures(request: login, response: nil).values["used"] == sent)
    }

    @Test func anAssertionBeforeAnyRegistrationIsAClearError() throws {
        let contract = try loadContract(PasskeyContracts.ceremonies)
        let request = try Self.request()
        do {
            _ = try contract.interactions[3].request.render(with: ["request": request.json], authenticators: WebAuthnAuthenticators())
            Issue.record("an assertion was made without a credential")
        } catch let error as WebAuthnAuthenticators.NoCredential {
            #expect(
                error.description
                    == "$.credential: the authenticator 'mia-phone' has registered no credential in this run: a webauthn_assertion needs an earlier webauthn_registration by the same authenticator"
            )
        }
        // Without a run's authenticators there is no credential to sign with either.
        #expect(throws: MatcherSampleError.self) { try contract.interactions[3].request.render(with: ["request": request.json]) }
        // An unsaved value is an undefined variable, as anywhere.
        #expect(throws: Template.UndefinedVariable.self) {
            try contract.interactions[3].request.render(with: [:], authenticators: WebAuthnAuthenticators())
        }
    }

    @Test func optionsTheAuthenticatorCannotAnswerAreNamed() throws {
        let authenticators = WebAuthnAuthenticators()
        var options = Self.relyingParty.creationOptions(
            challenge: Self.challenge(), user: .init(id: Data([1]), name: "a", displayName: "a"))
        options.pubKeyCredParams = [.init(.rs256)]
        let json = try JSONValue(parsing: try JSONEncoder().encode(options))
        #expect {
            try authenticators.credential(for: Self.spec(.registration, "phone"), options: json)
        } throws: { error in
            "\(error)".contains("rejected (algorithm): the options do not accept ES256")
        }
        #expect(throws: WebAuthnAuthenticators.Refused.self) {
            try authenticators.credential(for: Self.spec(.registration, "phone"), options: ["challenge": "not options"])
        }
        #expect(authenticators.credentialID("phone") == nil)
    }
}
