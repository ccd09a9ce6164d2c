import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebAuthn

/// A NUL character is valid JSON (`"\u0000"`) and valid form encoding (`%00`), but PostgreSQL's
/// text cannot hold it: a value carrying one must be answered as any other wrong value is (a
/// 4xx error, or the route's answer for an unknown token or account), never a 500, on every
/// route that reads text from the request, with or without credentials.
@Suite struct NulByteTests {
    static let nul = "a\u{0}b"

    /// Every JSON route's text fields, each in turn replaced by a value holding a NUL.
    static let jsonRoutes: [(path: String, body: [String: String])] = [
        ("/login", ["username": "alice", "password": OAuthRoutesTests.password]),
        ("/users", ["username": "bob", "password": "another long enough passphrase", "email": "bob@example.com"]),
        ("/password/reset", ["username": "alice"]),
        ("/password/reset", ["email": "alice@example.com"]),
        ("/password/reset/confirm", ["token": "abc", "new_password": "another long enough passphrase"]),
        ("/email/verify", ["token": "abc"]),
        ("/token/refresh", ["refresh_token": "abc"]),
        ("/logout", ["refresh_token": "abc"]),
        ("/login/mfa", ["mfa_token": "abc", "code": "123456"]),
        ("/webauthn/login/options", ["username": "alice"]),
    ]

    @Test func jsonValuesWithANulGetA4xx() async throws {
        let (fixture, _) = try await OAuthRoutesTests.fixture {
            $0.signUpOpen = true
            // Nothing listens there: messages wait in the outbox.
            $0.delivery = try? DeliveryConfiguration(
                url: "http://127.0.0.1:9/deliveries", secret: Data("a shared secret of the mailer".utf8))
            $0.passkeys = WebAuthnRelyingParty(
                id: "example.com", name: "Example", origins: [PasskeyTests.origin], userVerification: .required,
                attestationPolicy: .acceptUnverified
            )
        }
        try await fixture.test { client in
            for route in Self.jsonRoutes {
                for field in route.body.keys.sorted() {
                    var body = route.body
                    body[field] = Self.nul
                    let answer = try await client.sendJSON(.post, route.path, body)
                    try Self.expectHandled(answer, "\(route.path) \(field)")
                }
            }
            // Authenticated routes read text too.
            let access = try #require(try await client.login("alice", OAuthRoutesTests.password).json()["access_token"] as? String)
            for (path, body) in [
                ("/password", ["current_password": Self.nul, "new_password": "another long enough passphrase"]),
                ("/password", ["current_password": OAuthRoutesTests.password, "new_password": "another \(Self.nul) long passphrase"]),
                ("/webauthn/register", ["name": Self.nul, "challenge": Self.nul]),
            ] {
                try Self.expectHandled(try await client.sendJSON(.post, path, body, bearer: access), "\(path) \(body.keys.sorted())")
            }
            let session = try await client.execute(uri: "/sessions/a%00b", method: .delete, headers: [.authorization: "Bearer \(access)"])
            try Self.expectHandled(session, "DELETE /sessions/a%00b")
        }
    }

    @Test func formValuesWithANulGetA4xx() async throws {
        let (fixture, secret) = try await OAuthRoutesTests.fixture()
        try await fixture.test { client in
            let routes: [(path: String, fields: [String: String])] = [
                ("/oauth/introspect", ["token": "abc", "token_type_hint": "access_token"]),
                ("/oauth/revoke", ["token": "abc", "token_type_hint": "refresh_token"]),
                ("/oauth/token", ["grant_type": "refresh_token", "refresh_token": "abc"]),
                ("/oauth/token", ["grant_type": "client_credentials", "scope": "x"]),
            ]
            for route in routes {
                for field in route.fields.keys.sorted() {
                    var fields = route.fields
                    fields[field] = Self.nul
                    let answer = try await client.form(route.path, fields, basic: ("orders-api", secret))
                    try Self.expectHandled(answer, "\(route.path) \(field)")
                }
                // The client's credentials, posted in the form or sent as HTTP Basic.
                for credentials in [
                    ["client_id": Self.nul, "client_secret": secret], ["client_id": "orders-api", "client_secret": Self.nul],
                ] {
                    let posted = try await client.form(route.path, route.fields.merging(credentials) { $1 })
                    #expect(posted.status == .unauthorized, "\(route.path) \(credentials.keys.sorted()): \(posted.status)")
                    #expect(try posted.error().code == "invalid_client")
                }
                let basic = try await client.form(route.path, route.fields, basic: (Self.nul, secret))
                #expect(basic.status == .unauthorized, "\(route.path) basic: \(basic.status)")
            }
        }
    }

    /// A 4xx with the error shape, or a success (an unknown token is not an error to
    /// introspection, revocation or logout; a reset answers alike for every name).
    static func expectHandled(_ answer: TestResponse, _ what: String) throws {
        #expect(answer.status.code < 500, "\(what): \(answer.status)")
        if answer.status.code >= 400 {
            #expect(try answer.error().description.isEmpty == false, "\(what)")
        }
    }
}
