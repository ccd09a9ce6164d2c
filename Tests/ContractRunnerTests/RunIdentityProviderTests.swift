import AsyncHTTPClient
import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Crypto
import Foundation
import JOSE
import Testing

/// The run's OpenID provider: the receiver publishes its discovery document and keys, and a
/// request's `{ match: jwt, signed: true }` is a token it signs, which a relying party
/// verifies with those keys.
@Suite struct RunIdentityProviderTests {
    static let contract = """
        name: Native sign-in
        interactions:
          - name: an ID token signs in
            request:
              method: POST
              path: /login/id-token
              json:
                id_token:
                  match: jwt
                  signed: true
                  claims: { aud: notes-app, sub: { match: uuid }, nonce: n0nce }
                  example: "eyJhbGciOiJub25lIn0.eyJhdWQiOiJub3Rlcy1hcHAiLCJub25jZSI6Im4wbmNlIiwic3ViIjoiM2YyYzhlNGEtNmIxZC00YTc2LTljMmUtOGQ1ZjBhMWIyYzNkIn0.c2ln"
            response:
              status: 200
              json: { signed_in: true }
        """

    /// A relying party of the run's provider: it fetches the discovery document and the keys
    /// from the receiver, and answers 200 only for a token those keys verify, of that issuer.
    struct RelyingParty: ContractTransport {
        let issuer: String

        func send(_ request: ContractRequest) async throws -> ContractResponse {
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                let answer = try await answer(request, client)
                try await client.shutdown()
                return answer
            } catch {
                try? await client.shutdown()
                throw error
            }
        }

        func answer(_ request: ContractRequest, _ client: HTTPClient) async throws -> ContractResponse {
            let discovery = try await Self.json(issuer + "/.well-known/openid-configuration", client)
            #expect(discovery["issuer"] == .string(issuer))
            guard case .string(let jwksURI)? = discovery["jwks_uri"] else { throw Unexpected() }
            let keys = try await Self.json(jwksURI, client)
            let body = try JSONValue(parsing: try #require(request.body))
            guard case .string(let token)? = body["id_token"], case .array(let published)? = keys["keys"],
                case .string(let x)? = published.first?["x"], let key = Base64URL.decode(x)
            else { throw Unexpected() }
            let parts = token.split(separator: ".").map(String.init)
            let verified = try Curve25519.Signing.PublicKey(rawRepresentation: key)
                .isValidSignature(try #require(Base64URL.decode(parts[2])), for: Data((parts[0] + "." + parts[1]).utf8))
            let claims = try JSONValue(parsing: try #require(Base64URL.decode(parts[1])))
            var live = false
            if case .integer(let exp)? = claims["exp"] { live = exp > Int(Date().timeIntervalSince1970) }
            let good = verified && live && claims["iss"] == .string(issuer) && claims["aud"] == .string("notes-app")
            return ContractResponse(
                status: good ? 200 : 401, headers: [(name: "Content-Type", value: "application/json")],
                body: Data((good ? #"{"signed_in":true}"# : #"{"signed_in":false}"#).utf8))
        }

        struct Unexpected: Error {}

        static func json(_ url: String, _ client: HTTPClient) async throws -> JSONValue {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            #expect(response.status == .ok)
            return try JSONValue(parsing: Data(buffer: try await response.body.collect(upTo: 1 << 16)))
        }
    }

    @Test func aSignedTokenIsTheRunsProvidersAndVerifiesWithItsPublishedKeys() async throws {
        let receiver = try await DeliveryReceiver.start()
        defer { receiver.close() }
        let contracts = [try loadContract(Self.contract)]
        let report = await ContractVerifier(
            live: RelyingParty(issuer: receiver.url), stub: try ContractStub(contracts: contracts), states: nil,
            identityProvider: receiver.identityProvider
        ).verify(contracts)
        #expect(report.results.map(\.outcome) == [.passed], "\(TextReport.render(report, color: false))")
        // The provider's documents are not deliveries.
        #expect(receiver.inbox.received.isEmpty)
        // Without the run's provider, the example goes, which the relying party refuses.
        let unsigned = await ContractVerifier(live: RelyingParty(issuer: receiver.url), states: nil).verify(contracts)
        guard case .failed(let mismatches)? = unsigned.results.first?.outcome else {
            Issue.record("the example was taken")
            return
        }
        #expect(mismatches.contains { $0.path == "status" })
    }

    @Test func signedIsWrittenBackAsItWasRead() throws {
        let contract = try loadContract(Self.contract)
        let written = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        #expect(written.contains("signed: true"))
        #expect(try loadContract(written) == contract)
    }
}

/// The run's provider in a browser flow: its authorization endpoint signs the test user in
/// and sends a code back; its token endpoint takes the code once, with the verifier.
@Suite struct RunIdentityProviderSignInTests {
    let provider = RunIdentityProvider(issuer: "http://127.0.0.1:4000")
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    func authorize(_ extra: [(name: String, value: String)] = []) throws -> String {
        let answer = provider.authorize(
            [
                ("response_type", "code"), ("client_id", "rp"), ("redirect_uri", "http://127.0.0.1:8080/cb"), ("state", "s 1"),
                ("nonce", "n-1"), ("code_challenge", PKCE.challenge(of: verifier)), ("code_challenge_method", "S256"),
            ] + extra)
        #expect(answer.status == 302)
        let location = try #require(answer.location)
        let query = LocationSpec.parts(of: location)
        #expect(query.url == "http://127.0.0.1:8080/cb")
        #expect(query.query.first { $0.name == "state" }?.value == "s 1")
        #expect(query.query.first { $0.name == "iss" }?.value == "http://127.0.0.1:4000")
        return try #require(query.query.first { $0.name == "code" }?.value)
    }

    func token(_ code: String, verifier: String) -> RunIdentityProvider.Answer {
        provider.token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "http://127.0.0.1:8080/cb"), ("client_id", "rp"),
                ("code_verifier", verifier),
            ], authorization: nil)
    }

    @Test func aCodeGivesAnIDTokenWithTheNonceOnceAndOnlyWithItsVerifier() throws {
        let code = try authorize([("login_hint", "ada")])
        #expect(token(code, verifier: String(repeating: "a", count: 43)).json?["error"] == "invalid_grant")
        // The refused attempt used the code up.
        #expect(token(code, verifier: verifier).json?["error"] == "invalid_grant")
        let fresh = try authorize()
        let answer = token(fresh, verifier: verifier)
        #expect(answer.status == 200)
        let idToken = try #require(answer.json?["id_token"]?.text)
        let claims = try #require(Base64URL.decode(idToken.split(separator: ".")[1]).flatMap { try? JSONValue(parsing: $0) })
        #expect(claims["nonce"] == "n-1" && claims["aud"] == "rp" && claims["sub"] == "contract-user")
        #expect(claims["iss"] == "http://127.0.0.1:4000")
        #expect(token(fresh, verifier: verifier).json?["error"] == "invalid_grant")
    }

    @Test func aRequestWithoutPKCEOrARedirectURIIsRefused() {
        #expect(provider.authorize([("response_type", "code"), ("client_id", "rp"), ("redirect_uri", "http://x/cb")]).status == 400)
        #expect(provider.authorize([("response_type", "token"), ("client_id", "rp")]).status == 400)
        #expect(provider.discoveryDocument["token_endpoint"] == "http://127.0.0.1:4000/token")
        #expect(provider.discoveryDocument["code_challenge_methods_supported"] == ["S256"])
    }
}
