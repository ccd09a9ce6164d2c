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
import WebAuthn

/// Passkeys over HTTP, on PostgreSQL, with the software authenticator of the WebAuthn
/// target playing the phone: registration, login with and without a username, and each
/// check that refuses a response.
@Suite struct PasskeyTests {
    static let password = "correct horse battery staple"
    static let origin = "https://app.example.com"

    static func fixture(userVerification: UserVerificationRequirement = .required) async throws -> ServerFixture {
        var fixture = try await ServerFixture()
        fixture.configuration.passkeys = WebAuthnRelyingParty(
            id: "example.com", name: "Example", origins: [origin], userVerification: userVerification, attestationPolicy: .acceptUnverified
        )
        return fixture
    }

    /// Decodes a response body as `T`.
    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    /// POSTs `body` (any Encodable) as JSON.
    static func post(_ client: some TestClientProtocol, _ path: String, _ body: some Encodable, bearer: String? = nil) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: try JSONEncoder().encode(body)))
    }

    struct Registration: Encodable {
        let credential: RegistrationResponseJSON
        var name: String?
    }

    struct Login: Encodable {
        let credential: AuthenticationResponseJSON
    }

    struct Decoded: Decodable {
        let credential: AuthenticationResponseJSON
    }

    struct Username: Encodable {
        let username: String
    }

    /// Logs `username` in with its password and registers `authenticator`'s passkey; returns the access token.
    @discardableResult
    static func register(
        _ client: some TestClientProtocol, _ username: String, _ authenticator: inout SoftwareAuthenticator, name: String? = nil
    ) async throws -> String {
        let access = try #require(try await client.login(username, password).json()["access_token"] as? String)
        let options = try decode(
            PublicKeyCredentialCreationOptionsJSON.self, try await client.sendJSON(.post, "/webauthn/register/options", [:], bearer: access)
        )
        let registered = try await post(
            client, "/webauthn/register", Registration(credential: try authenticator.register(options), name: name), bearer: access)
        #expect(registered.status == .created, "\(String(buffer: registered.body))")
        return access
    }

    /// Login options (for `username`, or discoverable) and the assertion `authenticator` makes for them.
    static func assertion(_ client: some TestClientProtocol, _ authenticator: inout SoftwareAuthenticator, username: String? = nil)
        async throws -> AuthenticationResponseJSON
    {
        let response =
            username.map { _ in () } == nil
            ? try await client.sendJSON(.post, "/webauthn/login/options", [:])
            : try await post(client, "/webauthn/login/options", Username(username: username ?? ""))
        return try authenticator.authenticate(try decode(PublicKeyCredentialRequestOptionsJSON.self, response))
    }

    @Test(arguments: [SoftwareAuthenticator.Algorithm.es256, .edDSA])
    func aPasskeyIsRegisteredAndLogsInWithAndWithoutAUsername(algorithm: SoftwareAuthenticator.Algorithm) async throws {
        let fixture = try await Self.fixture()
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let access = try #require(try await client.login("alice", Self.password).json()["access_token"] as? String)
            let optionsResponse = try await client.sendJSON(.post, "/webauthn/register/options", [:], bearer: access)
            #expect(optionsResponse.status == .ok)
            #expect(optionsResponse.headers[.cacheControl] == "no-store")
            let options = try Self.decode(PublicKeyCredentialCreationOptionsJSON.self, optionsResponse)
            #expect(options.rp.id == "example.com" && options.rp.name == "Example")
            #expect(options.user.name == "alice")
            #expect(options.user.id.count == 32 && options.user.id != Data("alice".utf8))
            #expect(options.challenge.count == 32)
            #expect(options.attestation == "none")
            #expect(options.pubKeyCredParams.map(\.alg) == [-8, -7, -257])
            #expect(options.excludeCredentials.isEmpty)

            var phone = SoftwareAuthenticator(algorithm: algorithm, origin: Self.origin)
            let registered = try await Self.post(
                client, "/webauthn/register", Registration(credential: try phone.register(options), name: "Alice's phone"), bearer: access)
            #expect(registered.status == .created)
            let passkey = try registered.json()
            let id = try #require(passkey["id"] as? String)
            #expect(Base64URL.decode(id) == phone.credentialID)
            #expect(passkey["name"] as? String == "Alice's phone")
            #expect(Set(passkey.keys) == ["id", "name", "created_at", "last_used_at", "transports", "backed_up"])

            // The next registration excludes it, and the same options (challenge) work once.
            let again = try Self.decode(
                PublicKeyCredentialCreationOptionsJSON.self,
                try await client.sendJSON(.post, "/webauthn/register/options", [:], bearer: access))
            #expect(again.excludeCredentials.map(\.id) == [phone.credentialID])
            #expect(again.user.id == options.user.id)
            var laptop = SoftwareAuthenticator(algorithm: algorithm, origin: Self.origin)
            let replayed = try await Self.post(
                client, "/webauthn/register", Registration(credential: try laptop.register(options)), bearer: access)
            #expect(replayed.status == .unauthorized)

            // With the username: its passkey is allowed; without: any passkey, named by its handle.
            let named = try await Self.assertion(client, &phone, username: "alice")
            let tokens = try await Self.post(client, "/webauthn/login", Login(credential: named))
            #expect(tokens.status == .ok)
            #expect(try await client.me(try #require(try tokens.json()["access_token"] as? String)).status == .ok)
            let discoverable = try await Self.assertion(client, &phone)
            #expect(discoverable.response.userHandle == options.user.id)
            #expect(try await Self.post(client, "/webauthn/login", Login(credential: discoverable)).status == .ok)
            // An assertion answers its challenge once.
            let replay = try await Self.post(client, "/webauthn/login", Login(credential: discoverable))
            #expect(replay.status == .unauthorized)
            #expect(try replay.error().code == "invalid_credentials")

            let listed = try await client.execute(uri: "/webauthn/credentials", method: .get, headers: [.authorization: "Bearer \(access)"])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [[String: Any]])
            #expect(list.count == 1 && list.first?["id"] as? String == id && list.first?["last_used_at"] is String)
        }
        #expect(try await fixture.auditDetails(of: "login_succeeded").suffix(2) == ["passkey", "passkey"])
        #expect(try await fixture.auditKinds().contains("passkey_registered"))
    }

    /// A username without passkeys (or without an account) gets the same shape of answer: one
    /// credential id derived from the name, the same each time, as long as the passkeys
    /// registered here are (their most common length) and with their transports.
    @Test func loginOptionsDoNotTellWhichNamesExistOrHavePasskeys() async throws {
        let fixture = try await Self.fixture()
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.addUser("bob", password: Self.password)
        try await fixture.test { client async throws in
            var phone = SoftwareAuthenticator(origin: Self.origin)
            try await Self.register(client, "alice", &phone)
            func allowed(_ name: String) async throws -> [PublicKeyCredentialDescriptorJSON] {
                let response = try await Self.post(client, "/webauthn/login/options", Username(username: name))
                #expect(response.status == .ok)
                return try Self.decode(PublicKeyCredentialRequestOptionsJSON.self, response).allowCredentials
            }
            let alice = try await allowed("alice")
            let bob = try await allowed("bob")
            let nobody = try await allowed("nobody")
            #expect(alice.map(\.id) == [try #require(phone.credentialID)])
            #expect(bob.count == 1 && nobody.count == 1 && bob != nobody)
            for decoy in [bob, nobody] {
                #expect(decoy.first?.id.count == alice.first?.id.count)
                #expect(decoy.first?.transports == alice.first?.transports && decoy.first?.transports == ["internal"])
                #expect(decoy.first?.type == "public-key")
            }
            #expect(try await allowed("nobody") == nobody)
            let discoverable = try Self.decode(
                PublicKeyCredentialRequestOptionsJSON.self, try await client.execute(uri: "/webauthn/login/options", method: .post))
            #expect(
                discoverable.allowCredentials.isEmpty && discoverable.rpId == "example.com" && discoverable.userVerification == .required)
        }
    }

    /// Twelve assertions of a cloned authenticator, all with the same counter, sent at once:
    /// the counter's update is guarded, so one logs in and the others are refused (audited).
    @Test func aClonesSimultaneousAssertionsLogInOnce() async throws {
        let fixture = try await Self.fixture()
        try await fixture.addUser("cleo", password: Self.password)
        try await fixture.test { client async throws in
            var phone = SoftwareAuthenticator(origin: Self.origin)
            try await Self.register(client, "cleo", &phone)
            var assertions: [AuthenticationResponseJSON] = []
            for _ in 0..<12 {
                var clone = phone
                assertions.append(try await Self.assertion(client, &clone))
            }
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for assertion in assertions {
                    group.addTask { UInt(try await Self.post(client, "/webauthn/login", Login(credential: assertion)).status.code) }
                }
                return try await group.reduce(into: [UInt: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [200: 1, 401: 11])
        }
        #expect(try await fixture.auditKinds().filter { $0 == "passkey_sign_count_regressed" }.count == 11)
    }

    /// Each check refuses on its own: origin, user verification, a challenge of another
    /// ceremony, a signature, a counter that went back (audited), another account's
    /// passkey for a username's challenge, a disabled account.
    @Test func eachCheckRefusesALogin() async throws {
        let fixture = try await Self.fixture()
        try await fixture.addUser("carol", password: Self.password)
        try await fixture.addUser("dan", password: Self.password)
        try await fixture.test { client async throws in
            var phone = SoftwareAuthenticator(origin: Self.origin)
            let access = try await Self.register(client, "carol", &phone)
            var dansKey = SoftwareAuthenticator(origin: Self.origin)
            try await Self.register(client, "dan", &dansKey)

            func refused(_ assertion: AuthenticationResponseJSON) async throws -> Bool {
                let response = try await Self.post(client, "/webauthn/login", Login(credential: assertion))
                let code = try response.error().code
                return response.status == .unauthorized && code == "invalid_credentials"
            }
            var elsewhere = phone
            elsewhere.origin = "https://evil.example.net"
            #expect(try await refused(try await Self.assertion(client, &elsewhere)))
            var careless = phone
            careless.userVerified = false
            #expect(try await refused(try await Self.assertion(client, &careless)))
            // A registration's challenge does not serve a login.
            let registration = try Self.decode(
                PublicKeyCredentialCreationOptionsJSON.self,
                try await client.sendJSON(.post, "/webauthn/register/options", [:], bearer: access))
            var forged = try await Self.assertion(client, &phone)
            let stolen = try phone.authenticate(
                PublicKeyCredentialRequestOptionsJSON(challenge: registration.challenge, rpId: "example.com"))
            #expect(try await refused(stolen))
            forged.response.signature = Data(forged.response.signature.reversed())
            #expect(try await refused(forged))
            // Dan's passkey does not answer a challenge issued for carol.
            var carols = try Self.decode(
                PublicKeyCredentialRequestOptionsJSON.self,
                try await Self.post(client, "/webauthn/login/options", Username(username: "carol"))
            )
            carols.allowCredentials = []
            #expect(try await refused(try dansKey.authenticate(carols)))
            // A counter that went back: a clone.
            var clone = phone
            _ = try await Self.post(client, "/webauthn/login", Login(credential: try await Self.assertion(client, &phone)))
            #expect(try await refused(try await Self.assertion(client, &clone)))

            _ = try await fixture.withDatabase { database async throws in
                try await database.client.query("UPDATE users SET disabled_at = now() WHERE username = 'carol'")
            }
            let disabled = try await Self.post(client, "/webauthn/login", Login(credential: try await Self.assertion(client, &phone)))
            #expect(try disabled.error().code == "account_disabled")
        }
        let details = try await fixture.auditDetails(of: "login_failed")
        #expect(details.contains("passkey_origin") && details.contains("passkey_user_verified") && details.contains("passkey_signature"))
        #expect(try await fixture.auditKinds().contains("passkey_sign_count_regressed"))
    }

    /// Mutated registrations and assertions are answered 4xx in the one error shape, never
    /// 5xx, and none of them logs in.
    @Test func malformedPayloadsGetA4xxInTheErrorShape() async throws {
        let fixture = try await Self.fixture()
        try await fixture.addUser("erin", password: Self.password)
        try await fixture.test { client async throws in
            var phone = SoftwareAuthenticator(origin: Self.origin)
            let access = try await Self.register(client, "erin", &phone)
            let original = try await Self.assertion(client, &phone)
            let assertion = try JSONEncoder().encode(Login(credential: original))
            var generator = SystemRandomNumberGenerator()
            var bodies: [Data] = [
                Data(), Data("{}".utf8), Data(#"{"credential":null}"#.utf8), Data(#"{"credential":[]}"#.utf8),
                Data(#"{"credential":{"id":"x","rawId":"!!","type":"public-key","response":{}}}"#.utf8),
            ]
            for _ in 0..<150 {
                var mutated = assertion
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[Int.random(in: 0..<mutated.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
                case 1: mutated = mutated.prefix(Int.random(in: 0..<mutated.count, using: &generator))
                default:
                    mutated.insert(UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 0..<mutated.count, using: &generator))
                }
                bodies.append(mutated)
            }
            for body in bodies {
                for path in ["/webauthn/login", "/webauthn/register"] {
                    let response = try await client.execute(
                        uri: path, method: .post, headers: [.contentType: "application/json", .authorization: "Bearer \(access)"],
                        body: ByteBuffer(bytes: body)
                    )
                    // A mutation that leaves the meaning (a space between tokens, unused bits of
                    // a base64url string's last character, a misspelt userHandle key: the handle
                    // is optional when the login names its account) may log in, once: the signed
                    // parts are the original's.
                    if response.status == .ok, path == "/webauthn/login",
                        let decoded = try? JSONDecoder().decode(Decoded.self, from: body).credential,
                        decoded.rawId == original.rawId, decoded.type == original.type,
                        decoded.response.clientDataJSON == original.response.clientDataJSON,
                        decoded.response.authenticatorData == original.response.authenticatorData,
                        decoded.response.signature == original.response.signature,
                        decoded.response.userHandle == nil || decoded.response.userHandle == original.response.userHandle,
                        Base64URL.decode(decoded.id) == Base64URL.decode(original.id)
                    {
                        continue
                    }
                    #expect((400..<500).contains(response.status.code), "\(path) \(String(decoding: body, as: UTF8.self))")
                    let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect(object?["error"] is String && object?["error_description"] is String)
                }
            }
        }
    }

    /// Adding or removing a passkey needs a recent login (RFC 9470): a token whose login is
    /// over 5 minutes old, or one from a refresh (no `auth_time`), is answered 401
    /// `insufficient_user_authentication` with `max_age`; the token of a new login may.
    @Test func registeringOrRemovingAPasskeyNeedsARecentLogin() async throws {
        var fixture = try await Self.fixture()
        let clock = TestClock()
        fixture.configuration.clock = clock
        try await fixture.addUser("hal", password: Self.password)
        try await fixture.test { client async throws in
            var phone = SoftwareAuthenticator(origin: Self.origin)
            let stale = try await Self.register(client, "hal", &phone)
            let id = Base64URL.encode(try #require(phone.credentialID))
            clock.advance(by: 301)
            let tokens = try await client.login("hal", Self.password).json()
            let refresh = try #require(tokens["refresh_token"] as? String)
            let refreshed = try #require(
                try await client.postJSON("/token/refresh", #"{"refresh_token":"\#(refresh)"}"#).json()["access_token"] as? String)
            for token in [stale, refreshed] {
                for (method, path) in [(HTTPRequest.Method.post, "/webauthn/register/options"), (.delete, "/webauthn/credentials/\(id)")] {
                    let refused = try await client.execute(uri: path, method: method, headers: [.authorization: "Bearer \(token)"])
                    #expect(refused.status == .unauthorized, "\(path)")
                    #expect(try refused.error().code == "insufficient_user_authentication")
                    #expect(
                        refused.headers[.wwwAuthenticate] == #"Bearer realm="authd", error="insufficient_user_authentication", max_age=300"#
                    )
                }
                #expect(
                    try await client.execute(uri: "/webauthn/credentials", method: .get, headers: [.authorization: "Bearer \(token)"])
                        .status == .ok)
            }
            let recent = try #require(tokens["access_token"] as? String)
            #expect(
                try await client.execute(uri: "/webauthn/credentials/\(id)", method: .delete, headers: [.authorization: "Bearer \(recent)"])
                    .status == .noContent)
        }
    }

    @Test func theOwnerListsAndRemovesPasskeys() async throws {
        let fixture = try await Self.fixture()
        try await fixture.addUser("fay", password: Self.password)
        try await fixture.addUser("gil", password: Self.password)
        try await fixture.test { client async throws in
            var phone = SoftwareAuthenticator(origin: Self.origin)
            let access = try await Self.register(client, "fay", &phone)
            var gilsKey = SoftwareAuthenticator(origin: Self.origin)
            let gil = try await Self.register(client, "gil", &gilsKey)
            let id = Base64URL.encode(try #require(phone.credentialID))
            // Gil cannot remove fay's passkey.
            #expect(
                try await client.execute(uri: "/webauthn/credentials/\(id)", method: .delete, headers: [.authorization: "Bearer \(gil)"])
                    .status == .notFound)
            #expect(
                try await client.execute(uri: "/webauthn/credentials/\(id)", method: .delete, headers: [.authorization: "Bearer \(access)"])
                    .status == .noContent)
            #expect(
                try await client.execute(uri: "/webauthn/credentials/\(id)", method: .delete, headers: [.authorization: "Bearer \(access)"])
                    .status == .notFound)
            let gone = try await Self.post(client, "/webauthn/login", Login(credential: try await Self.assertion(client, &phone)))
            #expect(gone.status == .unauthorized)
            #expect(try await client.execute(uri: "/webauthn/credentials", method: .get).status == .unauthorized)
        }
        #expect(try await fixture.auditKinds().contains("passkey_removed"))
    }

    /// Each login options answer stores a challenge, so it counts against the address's
    /// login attempts: a client cannot fill the table faster than it may try logins.
    @Test func loginOptionsAreCountedAgainstTheAddress() async throws {
        var fixture = try await Self.fixture()
        fixture.configuration.port = 0
        fixture.configuration.trustedProxies = try TrustedProxies(["127.0.0.0/8", "::1/128"])
        fixture.configuration.throttle.addressLimit = 3
        let app = try await fixture.application()
        try await app.test(.live) { client async throws in
            for _ in 0..<3 {
                #expect(try await client.postJSON("/webauthn/login/options", "{}", from: "203.0.113.7").status == .ok)
            }
            let refused = try await client.postJSON("/webauthn/login/options", "{}", from: "203.0.113.7")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(try await client.postJSON("/webauthn/login/options", "{}", from: "198.51.100.7").status == .ok)
        }
    }

    @Test func withoutARelyingPartyTheRoutesAreNotFound() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            #expect(try await client.execute(uri: "/webauthn/login/options", method: .post).status == .notFound)
        }
    }
}
