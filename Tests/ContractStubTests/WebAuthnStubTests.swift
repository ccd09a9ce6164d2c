import ContractKit
import ContractRunner
import ContractStub
import Foundation
import JOSE
import Testing

/// The stub as a WebAuthn relying party: a registration verified against the creation
/// options it answered, an assertion signed by a passkey it registered for the request
/// options it answered, its counter moving forward.
@Suite struct WebAuthnStubTests {
    static let contract = """
        name: Passkeys
        interactions:
          - name: registration options
            request: { method: POST, path: /webauthn/register/options, json: {} }
            response:
              status: 200
              json:
                rp: { id: example.com, name: Example }
                user: { id: { match: string, min_length: 43, max_length: 43 }, name: alice, displayName: alice }
                challenge: { match: string, min_length: 43, max_length: 43 }
                pubKeyCredParams: [{ type: public-key, alg: -7 }, { type: public-key, alg: -8 }]
                authenticatorSelection: { residentKey: required, userVerification: preferred }
            save: { creation: $ }
          - name: a passkey is registered
            request:
              method: POST
              path: /webauthn/register
              json: { credential: { match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: phone } }
            response: { status: 201, json: { registered: true } }
          - name: a registration is refused
            request: { method: POST, path: /webauthn/register, json: { credential: { match: any } } }
            response: { status: 401, json: { error: registration_refused } }
          - name: login options
            request: { method: POST, path: /webauthn/login/options, json: {} }
            response:
              status: 200
              json: { challenge: { match: string, min_length: 43, max_length: 43 }, rpId: example.com, userVerification: preferred }
            save: { request: $ }
          - name: the passkey signs in
            request:
              method: POST
              path: /webauthn/login
              json: { credential: { match: webauthn_assertion, options: "{{request}}", origin: "https://example.com", authenticator: phone } }
            response: { status: 200, json: { access_token: passkey } }
          - name: an assertion is refused
            request: { method: POST, path: /webauthn/login, json: { credential: { match: any } } }
            response: { status: 401, json: { error: invalid_credentials } }
        """

    /// The contract without its refusals: a refused credential is then a 501 naming why.
    static let strict =
        contract
        .replacingOccurrences(
            of:
                "  - name: a registration is refused\n    request: { method: POST, path: /webauthn/register, json: { credential: { match: any } } }\n    response: { status: 401, json: { error: registration_refused } }\n",
            with: ""
        )
        .replacingOccurrences(
            of:
                "  - name: an assertion is refused\n    request: { method: POST, path: /webauthn/login, json: { credential: { match: any } } }\n    response: { status: 401, json: { error: invalid_credentials } }",
            with: "")

    static let origin = "https://example.com"

    func creation(_ stub: ContractStub) throws -> PublicKeyCredentialCreationOptionsJSON {
        try JSONDecoder().decode(
            PublicKeyCredentialCreationOptionsJSON.self, from: stub.respond(to: post("/webauthn/register/options", "{}")).body)
    }

    func request(_ stub: ContractStub) throws -> PublicKeyCredentialRequestOptionsJSON {
        try JSONDecoder().decode(
            PublicKeyCredentialRequestOptionsJSON.self, from: stub.respond(to: post("/webauthn/login/options", "{}")).body)
    }

    /// `STATUS error`, or the status alone: what answered a credential.
    func send(_ credential: some Encodable, to path: String, _ stub: ContractStub) throws -> String {
        let body = String(decoding: try JSONEncoder().encode(["credential": credential]), as: UTF8.self)
        let response = stub.respond(to: post(path, body))
        if case .string(let error)? = response.json?["error"] { return "\(response.status) \(error)" }
        return "\(response.status)"
    }

    /// A stub with `phone`'s passkey registered.
    func registered(_ phone: inout SoftwareAuthenticator, yaml: String = contract) throws -> ContractStub {
        let stub = try ContractStub(contracts: [try loadContract(yaml)])
        #expect(try send(phone.register(creation(stub)), to: "/webauthn/register", stub) == "201")
        return stub
    }

    @Test func aRegisteredPasskeySignsInAndAReplayedAssertionIsRefused() throws {
        var phone = SoftwareAuthenticator(origin: Self.origin)
        let stub = try registered(&phone)
        let first = try phone.authenticate(request(stub))
        #expect(try send(first, to: "/webauthn/login", stub) == "200")
        // Fresh options, the counter one more: taken again.
        #expect(try send(phone.authenticate(request(stub)), to: "/webauthn/login", stub) == "200")
        // The first assertion again: its counter did not move.
        #expect(try send(first, to: "/webauthn/login", stub) == "401 invalid_credentials")
        #expect(stub.unmatched.isEmpty)
    }

    @Test func aReplayedRegistrationIsRefused() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)])
        var phone = SoftwareAuthenticator(origin: Self.origin)
        let registration = try phone.register(creation(stub))
        #expect(try send(registration, to: "/webauthn/register", stub) == "201")
        // The options are still the saved ones, but the credential is known now.
        #expect(try send(registration, to: "/webauthn/register", stub) == "401 registration_refused")
    }

    @Test(arguments: [SoftwareAuthenticator.Algorithm.es256, .edDSA])
    func bothAlgorithmsAndPackedSelfAttestationAreTaken(algorithm: SoftwareAuthenticator.Algorithm) throws {
        var phone = SoftwareAuthenticator(algorithm: algorithm, attestation: .packedSelf, origin: Self.origin)
        let stub = try registered(&phone)
        #expect(try send(phone.authenticate(request(stub)), to: "/webauthn/login", stub) == "200")
    }

    @Test func aTamperedSignatureIsRefused() throws {
        var phone = SoftwareAuthenticator(origin: Self.origin)
        let stub = try registered(&phone, yaml: Self.strict)
        var assertion = try phone.authenticate(request(stub))
        assertion.response.signature[assertion.response.signature.count - 1] ^= 1
        #expect(try send(assertion, to: "/webauthn/login", stub) == "501 not_stubbed")
        #expect(stub.unmatched.last?.difference.contains("is refused: rejected (signature)") == true, "\(stub.unmatched)")
    }

    @Test func anotherOriginIsRefused() throws {
        var elsewhere = SoftwareAuthenticator(origin: "https://evil.example")
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)])
        #expect(try send(elsewhere.register(creation(stub)), to: "/webauthn/register", stub) == "401 registration_refused")

        var phone = SoftwareAuthenticator(origin: Self.origin)
        let registeredStub = try registered(&phone)
        phone.origin = "https://evil.example"
        #expect(try send(phone.authenticate(request(registeredStub)), to: "/webauthn/login", registeredStub) == "401 invalid_credentials")
    }

    @Test func optionsTheStubDidNotAnswerAreRefused() throws {
        // A registration for a challenge of the client's own making.
        let stub = try ContractStub(contracts: [try loadContract(Self.strict)])
        var options = try creation(stub)
        options.challenge = Data(repeating: 7, count: 32)
        var phone = SoftwareAuthenticator(origin: Self.origin)
        #expect(try send(phone.register(options), to: "/webauthn/register", stub) == "501 not_stubbed")
        #expect(stub.unmatched.last?.difference.contains("rejected (challenge)") == true, "\(stub.unmatched)")

        // An assertion for login options it did not answer.
        let registeredStub = try registered(&phone, yaml: Self.strict)
        var request = try request(registeredStub)
        request.challenge = Data(repeating: 9, count: 32)
        #expect(try send(phone.authenticate(request), to: "/webauthn/login", registeredStub) == "501 not_stubbed")
        #expect(registeredStub.unmatched.last?.difference.contains("rejected (challenge)") == true, "\(registeredStub.unmatched)")
    }

    @Test func aCredentialTheStubDidNotRegisterIsRefused() throws {
        var phone = SoftwareAuthenticator(origin: Self.origin)
        let stub = try registered(&phone, yaml: Self.strict)
        // Another authenticator, registered with options that were never the stub's.
        var stranger = SoftwareAuthenticator(origin: Self.origin)
        _ = try stranger.register(creation(try ContractStub(contracts: [try loadContract(Self.contract)])))
        #expect(try send(stranger.authenticate(request(stub)), to: "/webauthn/login", stub) == "501 not_stubbed")
        #expect(
            stub.unmatched.last?.difference.contains("no credential with this ID was registered with the stub") == true, "\(stub.unmatched)"
        )
        // Reset forgets the stub's passkeys too.
        stub.reset()
        #expect(try send(phone.authenticate(request(stub)), to: "/webauthn/login", stub) == "501 not_stubbed")
    }

    @Test func userVerificationIsCheckedAsTheOptionsAsk() throws {
        let required = Self.contract.replacingOccurrences(
            of: "residentKey: required, userVerification: preferred", with: "residentKey: required, userVerification: required")
        var phone = SoftwareAuthenticator(origin: Self.origin)
        phone.userVerified = false
        let stub = try ContractStub(contracts: [try loadContract(required)])
        #expect(try send(phone.register(creation(stub)), to: "/webauthn/register", stub) == "401 registration_refused")
        phone.userVerified = true
        #expect(try send(phone.register(creation(stub)), to: "/webauthn/register", stub) == "201")
    }

    @Test func beforeItsOptionsAreSavedAnyCredentialFitsAsAPlaceholder() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)])
        // Unknown options score 1, as `any` does: the first in the file answers.
        #expect(stub.respond(to: post("/webauthn/register", #"{"credential":{"id":"x"}}"#)).status == 201)
        // Once the options are saved, the same value is checked, and refused.
        _ = try creation(stub)
        #expect(stub.respond(to: post("/webauthn/register", #"{"credential":{"id":"x"}}"#)).status == 401)
    }

    @Test func whatVerifySendsFromTheStubsOwnOptionsIsTaken() throws {
        let contract = try loadContract(Self.contract)
        let stub = try ContractStub(contracts: [contract])
        let authenticators = WebAuthnAuthenticators()
        let creation = try JSONValue(parsing: stub.respond(to: post("/webauthn/register/options", "{}")).body)
        #expect(
            stub.respond(to: try contract.interactions[1].request.render(with: ["creation": creation], authenticators: authenticators))
                .status == 201)
        let request = try JSONValue(parsing: stub.respond(to: post("/webauthn/login/options", "{}")).body)
        #expect(
            stub.respond(to: try contract.interactions[4].request.render(with: ["request": request], authenticators: authenticators)).status
                == 200)
        // Each answer carries a fresh challenge.
        let again = try JSONValue(parsing: stub.respond(to: post("/webauthn/login/options", "{}")).body)
        #expect(again["challenge"] != request["challenge"])
        guard case .string(let challenge)? = again["challenge"] else {
            Issue.record("no challenge in \(again)")
            return
        }
        #expect(Base64URL.decode(challenge)?.count == 32)
    }
}
