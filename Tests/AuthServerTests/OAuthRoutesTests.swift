import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JOSE
import NIOCore
import Testing
import WebForms

/// The relying parties' routes on PostgreSQL: metadata (RFC 8414), introspection (RFC 7662),
/// revocation (RFC 7009) and the token endpoint (RFC 6749), form-encoded, with client
/// authentication; Examples/PythonResourceServer drives the same routes with Authlib.
@Suite struct OAuthRoutesTests {
    static let password = "correct horse battery staple"

    /// A fixture with `alice` and the client `orders-api` (trusted with every token when
    /// `trusted`); returns its secret.
    static func fixture(trusted: Bool = false, _ configure: (inout AppConfiguration) -> Void = { _ in }) async throws -> (
        ServerFixture, String
    ) {
        var fixture = try await ServerFixture()
        configure(&fixture.configuration)
        try await fixture.addUser("alice", password: password)
        let (client, secret) = try OAuthClient.register(
            id: "orders-api", audiences: ["https://orders.example.com"], trustedIntrospector: trusted, now: Date()
        )
        #expect(try await fixture.withDatabase { try await PostgresOAuthClientRepository(database: $0).add(client) })
        return (fixture, secret)
    }

    @Test func metadataIsBuiltFromThePublicURLAndServedTwice() async throws {
        let (fixture, _) = try await Self.fixture {
            $0.publicURL = "https://auth.example.com/"
            $0.issuer = "https://auth.example.com"
        }
        try await fixture.test { client in
            let metadata = try await client.execute(uri: "/.well-known/oauth-authorization-server", method: .get)
            #expect(metadata.status == .ok)
            #expect(metadata.headers[.cacheControl] == "public, max-age=20")
            let fields = try metadata.json()
            #expect(fields["issuer"] as? String == "https://auth.example.com")
            #expect(fields["jwks_uri"] as? String == "https://auth.example.com/.well-known/jwks.json")
            #expect(fields["token_endpoint"] as? String == "https://auth.example.com/oauth/token")
            #expect(fields["introspection_endpoint"] as? String == "https://auth.example.com/oauth/introspect")
            #expect(fields["revocation_endpoint"] as? String == "https://auth.example.com/oauth/revoke")
            #expect(fields["authorization_endpoint"] as? String == "https://auth.example.com/authorize")
            #expect(fields["grant_types_supported"] as? [String] == ["authorization_code", "refresh_token", "client_credentials"])
            #expect(fields["response_types_supported"] as? [String] == ["code"])
            #expect(fields["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(fields["authorization_response_iss_parameter_supported"] as? Bool == true)
            #expect(fields["token_endpoint_auth_methods_supported"] as? [String] == ["client_secret_basic", "client_secret_post", "none"])
            #expect(fields["access_token_signing_alg_values_supported"] as? [String] == ["EdDSA"])
            // OpenID Connect Discovery 1.0 §3: the same, and what an OpenID Connect client reads besides.
            let openID = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            let discovery = try openID.json()
            for (name, value) in fields {
                #expect("\(discovery[name] ?? "")" == "\(value)", "\(name)")
            }
            #expect(discovery["userinfo_endpoint"] as? String == "https://auth.example.com/userinfo")
            #expect(discovery["end_session_endpoint"] as? String == "https://auth.example.com/logout")
            #expect(discovery["subject_types_supported"] as? [String] == ["public"])
            #expect(discovery["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256", "EdDSA"])
            #expect(discovery["scopes_supported"] as? [String] == ["openid", "profile", "email", "offline_access"])
        }
    }

    /// Without --public-url the URLs follow the request's Host; a Host that is not a host
    /// name, and forwarded headers from a peer that is not a trusted proxy, are not believed.
    @Test func metadataWithoutAPublicURLFollowsTheRequest() async throws {
        let (fixture, _) = try await Self.fixture()
        try await fixture.test { client in
            let forwarded: HTTPFields = [
                HTTPField.Name("X-Forwarded-Proto")!: "https", HTTPField.Name("X-Forwarded-Host")!: "evil.example",
            ]
            let response = try await client.execute(uri: "/.well-known/oauth-authorization-server", method: .get, headers: forwarded)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(try response.json()["token_endpoint"] as? String == "http://localhost/oauth/token")
        }
        func base(_ authority: String?, proto: String? = nil, host: String? = nil, trusted: Bool = false, https: Bool = false) -> String {
            MetadataController.base(
                authority: authority, forwardedProto: proto, forwardedHost: host, fromTrustedProxy: trusted, https: https)
        }
        #expect(base("auth.local:8443") == "http://auth.local:8443")
        #expect(base("[::1]:8080", https: true) == "https://[::1]:8080")
        #expect(base("evil.example/phish?") == "http://localhost")
        #expect(base("a b") == "http://localhost")
        #expect(base(nil) == "http://localhost")
        #expect(base("internal:8080", proto: "https", host: "auth.example.com") == "http://internal:8080")
        #expect(base("internal:8080", proto: "https", host: "auth.example.com", trusted: true) == "https://auth.example.com")
        #expect(base("internal:8080", proto: "gopher", host: "x@evil", trusted: true) == "http://localhost")
    }

    /// Behind a trusted proxy, its forwarded scheme and host make the URLs.
    @Test func aTrustedProxysForwardedHostMakesTheURLs() async throws {
        let (fixture, _) = try await Self.fixture { $0.trustedProxies = try! TrustedProxies(["127.0.0.1"]) }
        try await fixture.application().test(.live) { client in
            let response = try await client.execute(
                uri: "/.well-known/oauth-authorization-server", method: .get,
                headers: [HTTPField.Name("X-Forwarded-Proto")!: "https", HTTPField.Name("X-Forwarded-Host")!: "auth.example.com"]
            )
            #expect(try response.json()["token_endpoint"] as? String == "https://auth.example.com/oauth/token")
        }
    }

    @Test func introspectionVouchesOnlyForLiveTokens() async throws {
        let (fixture, secret) = try await Self.fixture(trusted: true)
        try await fixture.test { client in
            let tokens = try await client.login("alice", Self.password).json()
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)

            let live = try await client.form(
                "/oauth/introspect", ["token": access, "token_type_hint": "access_token"], basic: ("orders-api", secret))
            #expect(live.status == .ok)
            #expect(live.headers[.cacheControl] == "no-store")
            let claims = try live.json()
            #expect(claims["active"] as? Bool == true)
            #expect(claims["username"] as? String == "alice")
            #expect(claims["token_type"] as? String == "Bearer")
            #expect(claims["client_id"] as? String == "authd")
            #expect(claims["iss"] as? String == "authd")
            #expect((claims["exp"] as? Int ?? 0) > (claims["iat"] as? Int ?? .max))
            #expect(Set(claims.keys) == ["active", "sub", "username", "exp", "iat", "iss", "token_type", "client_id", "jti", "sid"])

            // client_secret_post works as Basic does.
            let posted = try await client.form("/oauth/introspect", ["token": refresh, "client_id": "orders-api", "client_secret": secret])
            #expect(try posted.json()["token_type"] as? String == "refresh_token")
            #expect(try posted.json()["sid"] as? String == claims["sid"] as? String)

            for garbage in ["not-a-token", "a.b.c", String(repeating: "x", count: 5000)] {
                #expect(
                    try await client.form("/oauth/introspect", ["token": garbage], basic: ("orders-api", secret)).json().keys.sorted() == [
                        "active"
                    ])
            }

            // After logout neither token is vouched for, though the access token has not expired,
            // and authd's own routes refuse it too.
            #expect(try await client.sendJSON(.post, "/logout", ["refresh_token": refresh]).status == .noContent)
            for token in [access, refresh] {
                #expect(
                    try await client.form("/oauth/introspect", ["token": token], basic: ("orders-api", secret)).json()["active"] as? Bool
                        == false)
            }
            #expect(
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .unauthorized)

            // A disabled account's live tokens neither.
            let next = try await client.login("alice", Self.password).json()
            let nextAccess = try #require(next["access_token"] as? String)
            _ = try await fixture.withDatabase {
                try await PostgresUserRepository(database: $0).setDisabled(true, usernameKey: "alice", at: Date())
            }
            #expect(
                try await client.form("/oauth/introspect", ["token": nextAccess], basic: ("orders-api", secret)).json()["active"] as? Bool
                    == false)
        }
    }

    @Test func clientAuthenticationAndTheFormAreChecked() async throws {
        let (fixture, secret) = try await Self.fixture()
        try await fixture.test { client in
            for (path, fields) in [
                ("/oauth/introspect", ["token": "x"]), ("/oauth/revoke", ["token": "x"]),
                ("/oauth/token", ["grant_type": "client_credentials"]),
            ] {
                let wrong = try await client.form(path, fields, basic: ("orders-api", "wrong"))
                #expect(wrong.status == .unauthorized)
                #expect(wrong.headers[.wwwAuthenticate] == #"Basic realm="authd""#)
                #expect(try wrong.error().code == "invalid_client")
                #expect(try await client.form(path, fields, basic: ("nobody", secret)).error() == wrong.error())
                #expect(try await client.form(path, fields).status == .unauthorized)
            }
            let basic = ("orders-api", secret)
            #expect(try await client.form("/oauth/introspect", [:], basic: basic).error().description == "token is required")
            #expect(
                try await client.form("/oauth/introspect", ["token": "x", "client_secret": secret], basic: basic).status == .badRequest)
            let twice = try await client.execute(
                uri: "/oauth/introspect", method: .post, headers: Self.headers(basic: basic), body: ByteBuffer(string: "token=a&token=b")
            )
            #expect(try twice.error() == ("invalid_request", "token must not be sent more than once"))
            let badEncoding = try await client.execute(
                uri: "/oauth/introspect", method: .post, headers: Self.headers(basic: basic), body: ByteBuffer(string: "token=%zz")
            )
            #expect(try badEncoding.error().code == "invalid_request")
            // Unknown parameters are ignored (RFC 6749 §3.1); one without a value is as if omitted.
            #expect(try await client.form("/oauth/introspect", ["token": "x", "resource": "y"], basic: basic).status == .ok)
            #expect(try await client.form("/oauth/introspect", ["token": ""], basic: basic).error().description == "token is required")
            let json = try await client.execute(
                uri: "/oauth/introspect", method: .post, headers: [.contentType: "application/json", .authorization: Self.basic(basic)],
                body: ByteBuffer(string: #"{"token":"x"}"#)
            )
            #expect(json.status == .unsupportedMediaType)
            #expect(try json.error().description.contains("application/x-www-form-urlencoded"))
            let malformedBasic = try await client.form("/oauth/introspect", ["token": "x"], authorization: "Basic !!!")
            #expect(malformedBasic.status == .unauthorized)
        }
    }

    @Test func revocationEndsTheSessionOfARefreshOrAnAccessToken() async throws {
        let (fixture, secret) = try await Self.fixture(trusted: true)
        try await fixture.test { client in
            let basic = ("orders-api", secret)
            let first = try await client.login("alice", Self.password).json()
            let revoked = try await client.form("/oauth/revoke", ["token": try #require(first["refresh_token"] as? String)], basic: basic)
            #expect(revoked.status == .ok)
            #expect(revoked.body.readableBytes == 0)
            #expect(try await client.refresh(try #require(first["refresh_token"] as? String)).status == .unauthorized)

            let second = try await client.login("alice", Self.password).json()
            #expect(
                try await client.form("/oauth/revoke", ["token": try #require(second["access_token"] as? String)], basic: basic).status
                    == .ok)
            #expect(try await client.refresh(try #require(second["refresh_token"] as? String)).status == .unauthorized)

            for unknown in ["not-a-token", "a.b.c"] {
                #expect(
                    try await client.form("/oauth/revoke", ["token": unknown, "token_type_hint": "refresh_token"], basic: basic).status
                        == .ok)
            }
        }
        let kinds = try await fixture.auditKinds()
        #expect(kinds.filter { $0 == "sessions_revoked" }.count == 2)
    }

    @Test func theTokenEndpointRefreshesAndIssuesClientTokens() async throws {
        let (fixture, secret) = try await Self.fixture()
        try await fixture.test { client in
            let tokens = try await client.login("alice", Self.password).json()
            let refresh = try #require(tokens["refresh_token"] as? String)
            let refreshed = try await client.form(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "authd"])
            #expect(refreshed.status == .ok)
            #expect(refreshed.headers[.cacheControl] == "no-store")
            let next = try refreshed.json()
            #expect(next["token_type"] as? String == "Bearer")
            #expect(next["refresh_token"] as? String != refresh)

            let replayed = try await client.form("/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh])
            #expect(replayed.status == .badRequest)
            #expect(try replayed.error().code == "invalid_grant")
            // A user's refresh token was issued to authd's login routes, not to a relying party.
            let foreign = try await client.form(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": try #require(next["refresh_token"] as? String)],
                basic: ("orders-api", secret)
            )
            #expect(try foreign.error().code == "invalid_grant")
            #expect(
                try await client.form("/oauth/token", ["grant_type": "refresh_token"]).error().description == "refresh_token is required")
            #expect(try await client.form("/oauth/token", ["grant_type": "password"]).error().code == "unsupported_grant_type")
            #expect(try await client.form("/oauth/token", [:]).error().description == "grant_type is required")

            let own = try await client.form(
                "/oauth/token", ["grant_type": "client_credentials", "scope": "ignored"], basic: ("orders-api", secret))
            #expect(own.status == .ok)
            let body = try own.json()
            #expect(Set(body.keys) == ["access_token", "token_type", "expires_in"])
            let access = try #require(body["access_token"] as? String)
            let payload = try #require(CompactJWS(access)?.payload)
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["sub"] as? String == "orders-api")
            #expect(claims["client_id"] as? String == "orders-api")
            #expect(claims["aud"] as? [String] == ["https://orders.example.com"])
            #expect(claims["sid"] == nil)
            #expect(
                try await client.form("/oauth/introspect", ["token": access], basic: ("orders-api", secret)).json()["active"] as? Bool
                    == true)
            // Not a user's token: /me refuses it.
            #expect(
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .unauthorized)
        }
    }

    static func basic(_ credentials: (String, String)) -> String {
        BasicCredentials.header(username: credentials.0, password: credentials.1)
    }

    static func headers(basic credentials: (String, String)) -> HTTPFields {
        [.contentType: "application/x-www-form-urlencoded", .authorization: basic(credentials)]
    }
}

extension TestClientProtocol {
    /// POSTs `fields` form-encoded, with HTTP Basic client credentials or a raw `Authorization` when given.
    func form(_ path: String, _ fields: [String: String], basic: (String, String)? = nil, authorization: String? = nil) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let basic { headers[.authorization] = OAuthRoutesTests.basic(basic) }
        if let authorization { headers[.authorization] = authorization }
        let body = FormEncoding.encode(fields.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        return try await execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }
}
