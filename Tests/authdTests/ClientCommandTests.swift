import AsyncHTTPClient
import AuthTestSupport
import Foundation
import NIOCore
import Testing
import WebForms

/// `authd client add|list|remove`: a relying party's secret is shown once, works at
/// `POST /oauth/introspect` while the client exists, and only its hash is stored.
@Suite struct ClientCommandTests {
    @Test func aClientIsAddedUsedListedAndRemoved() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let added = try await AuthdBinary.run(["client", "add", "orders-api", "--audience", "https://orders.example.com"] + url)
        #expect(added.status == 0)
        let lines = added.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "client_id: orders-api")
        let lastWord: Substring? = lines.last?.split(separator: " ").last
        let secret = String(try #require(lastWord))
        #expect(secret.count == 43)

        #expect(try await AuthdBinary.run(["client", "add", "orders-api"] + url).stderr.contains("exists already"))
        let reserved = try await AuthdBinary.run(["client", "add", "authd"] + url)
        #expect(reserved.status != 0 && reserved.stderr.contains("authd's own login routes"))
        #expect(try await AuthdBinary.run(["client", "add", "no spaces"] + url).stderr.contains("letters, digits"))

        #expect(try await AuthdBinary.run(["client", "add", "gateway", "--trusted-introspector"] + url).status == 0)

        let listed = try await AuthdBinary.run(["client", "list"] + url).stdout
        #expect(listed.contains("orders-api") && listed.contains("https://orders.example.com"))
        #expect(listed.split(separator: "\n").contains { $0.hasPrefix("gateway ") && $0.hasSuffix("(trusted introspector)") })
        #expect(!listed.contains(secret))

        let served = try await AuthdBinary.withServer(url) { base async throws in
            #expect(try await Self.introspect(base, "orders-api", secret) == 200)
            #expect(try await Self.introspect(base, "orders-api", "wrong") == 401)
            #expect(try await AuthdBinary.run(["client", "remove", "orders-api"] + url).stdout == "removed client orders-api\n")
            #expect(try await Self.introspect(base, "orders-api", secret) == 401)
        }
        #expect(served.status == 0)
        #expect(try await AuthdBinary.run(["client", "remove", "orders-api"] + url).stderr.contains("no client named orders-api"))

        // A chosen secret (from a secret store), replacing the client of that name; never echoed.
        let chosen = String(repeating: "s3cret-", count: 6)
        let provisioned = try await AuthdBinary.run(["client", "add", "billing", "--secret-stdin"] + url, input: chosen + "\n")
        #expect(provisioned.stdout == "client_id: billing\n")
        #expect(
            try await AuthdBinary.run(["client", "add", "billing", "--secret-stdin"] + url, input: chosen).stderr.contains("--replace"))
        #expect(
            try await AuthdBinary.run(["client", "add", "billing", "--secret-stdin", "--replace"] + url, input: "short").stderr.contains(
                "32 to 512"))
        let replaced = try await AuthdBinary.run(["client", "add", "billing", "--replace"] + url)
        #expect(replaced.status == 0 && replaced.stdout.contains("client_secret: "))
        let audit = try await AuthdBinary.run(["audit"] + url).stdout
        #expect(audit.contains("client_registered") && audit.contains("client_removed") && !audit.contains(secret))
    }

    @Test func anAppThatSignsUsersInIsRegisteredWithItsRedirectURIs() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let phone = try await AuthdBinary.run(
            [
                "client", "add", "phone-app", "--public", "--redirect-uri", "com.example.app:/callback", "--redirect-uri",
                "http://127.0.0.1/cb",
            ]
                + url)
        #expect(phone.status == 0)
        #expect(phone.stdout.hasPrefix("client_id: phone-app\npublic client: no secret") && !phone.stdout.contains("client_secret"))
        let web = try await AuthdBinary.run(
            ["client", "add", "web-app", "--redirect-uri", "https://app.example.com/callback", "--first-party", "--scope", "openid"] + url)
        #expect(web.status == 0 && web.stdout.contains("client_secret: "))
        let listed = try await AuthdBinary.run(["client", "list"] + url).stdout
        #expect(
            listed.contains(
                "signs users in (public; scopes openid profile email offline_access; ID tokens RS256) at com.example.app:/callback http://127.0.0.1/cb"
            ))
        #expect(
            listed.contains(
                "signs users in (confidential, first-party; scopes openid; ID tokens RS256) at https://app.example.com/callback"))

        let refused = try await AuthdBinary.run(["client", "add", "bad-app", "--redirect-uri", "http://app.example.com/cb"] + url)
        #expect(refused.status != 0 && refused.stderr.contains("loopback"))
        let noURI = try await AuthdBinary.run(["client", "add", "bad-app", "--public"] + url)
        #expect(noURI.status != 0 && noURI.stderr.contains("--redirect-uri"))
    }

    /// With AsyncHTTPClient: FoundationNetworking's URLSession waits forever on a 401 that
    /// challenges with `WWW-Authenticate: Basic`, as RFC 6749 §5.2 has invalid_client do.
    static func introspect(_ base: URL, _ id: String, _ secret: String) async throws -> Int {
        var request = HTTPClientRequest(url: base.appendingPathComponent("oauth/introspect").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Authorization", value: BasicCredentials.header(username: id, password: secret))
        request.body = .bytes(ByteBuffer(string: "token=not-a-token"))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return Int(response.status.code)
    }
}
