import ContractStub
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Only ContractStub is imported here, as in an app's test target: the software authenticator
// and the WebAuthn JSON types must come with it.

/// A passkey client as an app writes one: URLSession and Codable, the options and
/// credentials in WebAuthn's JSON forms; the platform's authenticator is the test's.
struct PasskeyClient {
    struct Registration: Encodable {
        let credential: RegistrationResponseJSON
    }

    struct Assertion: Encodable {
        let credential: AuthenticationResponseJSON
    }

    struct Tokens: Decodable {
        let accessToken: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
        }
    }

    let baseURL: URL
    let session: URLSession

    func registrationOptions() async throws -> PublicKeyCredentialCreationOptionsJSON {
        try JSONDecoder().decode(
            PublicKeyCredentialCreationOptionsJSON.self, from: try await post("webauthn/register/options", Data("{}".utf8)).data)
    }

    /// The status `POST /webauthn/register` answers.
    func register(_ credential: RegistrationResponseJSON) async throws -> Int {
        try await post("webauthn/register", try JSONEncoder().encode(Registration(credential: credential))).status
    }

    func loginOptions() async throws -> PublicKeyCredentialRequestOptionsJSON {
        try JSONDecoder().decode(
            PublicKeyCredentialRequestOptionsJSON.self, from: try await post("webauthn/login/options", Data("{}".utf8)).data)
    }

    /// The access token, or nil with the status when the login was refused.
    func logIn(_ credential: AuthenticationResponseJSON) async throws -> (status: Int, token: String?) {
        let (data, status) = try await post("webauthn/login", try JSONEncoder().encode(Assertion(credential: credential)))
        return (status, status == 200 ? try JSONDecoder().decode(Tokens.self, from: data).accessToken : nil)
    }

    private func post(_ path: String, _ body: Data) async throws -> (data: Data, status: Int) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}

@Suite struct WebAuthnClientTests {
    @Test func aClientTestRegistersAPasskeyWithTheStubAndSignsInWithIt() async throws {
        let stub = try ContractStub(contracts: [try loadContract(WebAuthnStubTests.contract)])
        let client = PasskeyClient(baseURL: try #require(URL(string: "https://auth.example")), session: stub.urlSession)
        var phone = SoftwareAuthenticator(origin: "https://example.com")

        let creation = try await client.registrationOptions()
        #expect(try await client.register(phone.register(creation)) == 201)

        let request = try await client.loginOptions()
        let assertion = try phone.authenticate(request)
        let login = try await client.logIn(assertion)
        #expect(login.status == 200 && login.token == "passkey")
        // The same assertion again is refused, as authd refuses it.
        #expect(try await client.logIn(assertion).status == 401)
        // A passkey for another site is refused too.
        var elsewhere = SoftwareAuthenticator(origin: "https://evil.example")
        #expect(try await client.register(elsewhere.register(try await client.registrationOptions())) == 401)
        #expect(stub.unmatched.isEmpty)
    }
}
