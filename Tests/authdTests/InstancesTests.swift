import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import JOSE
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `authd serve` processes on one PostgreSQL, as behind a load balancer: they share
/// throttling, refresh rotation and reuse detection, and see each other's key rotation.
@Suite struct InstancesTests {
    static let password = "correct horse battery staple"

    @Test func twoInstancesShareSessionsThrottlingAndKeys() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        // A light hash: this test is about sharing, and the suite runs beside it on 2 cores.
        let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
        #expect(try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + light, input: Self.password).status == 0)
        #expect(try await AuthdBinary.run(["user", "add", "mallory", "--password-stdin"] + url + light, input: Self.password).status == 0)
        let (a, baseA) = try await AuthdBinary.serve(url + light + ["--key-reload-interval", "1", "--trusted-proxy", "127.0.0.1/32"])
        let (b, baseB) = try await AuthdBinary.serve(url + light + ["--key-reload-interval", "1"])

        // Refresh on one, replay on the other: the family is revoked everywhere.
        let login = try await HTTP.json(baseA, "POST", "/login", ["username": "alice", "password": Self.password])
        let first = try #require(login.body["refresh_token"] as? String)
        let oldAccess = try #require(login.body["access_token"] as? String)
        let refreshed = try await HTTP.json(baseB, "POST", "/token/refresh", ["refresh_token": first])
        #expect(refreshed.status == 200)
        let second = try #require(refreshed.body["refresh_token"] as? String)
        #expect(try await HTTP.json(baseA, "POST", "/token/refresh", ["refresh_token": first]).status == 401)
        #expect(try await HTTP.json(baseB, "POST", "/token/refresh", ["refresh_token": second]).status == 401)

        // Concurrent refreshes of one token on both instances: exactly one wins.
        let race = try #require(
            try await HTTP.json(baseA, "POST", "/login", ["username": "alice", "password": Self.password]).body["refresh_token"] as? String)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await HTTP.json(index.isMultiple(of: 2) ? baseA : baseB, "POST", "/token/refresh", ["refresh_token": race]).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.sorted() == [200, 401, 401, 401, 401, 401])

        // Failures counted on both instances add up: the 11th attempt is throttled on either.
        for attempt in 0..<10 {
            let status = try await HTTP.json(
                attempt.isMultiple(of: 2) ? baseA : baseB, "POST", "/login", ["username": "mallory", "password": "wrong password"]
            ).status
            #expect(status == 401)
        }
        let throttledA = try await HTTP.json(baseA, "POST", "/login", ["username": "mallory", "password": Self.password])
        let throttledB = try await HTTP.json(baseB, "POST", "/login", ["username": "mallory", "password": Self.password])
        #expect(throttledA.status == 429)
        #expect(throttledB.status == 429)

        // A key rotated by the CLI signs and is published on both within the reload interval.
        // (A token of a live session: the sessions above ended with their replays.)
        let keptAccess = try #require(
            try await HTTP.json(baseA, "POST", "/login", ["username": "alice", "password": Self.password]).body["access_token"] as? String
        )
        let before = try await HTTP.json(baseA, "GET", "/.well-known/jwks.json")
        let oldKid = try #require(((before.body["keys"] as? [[String: Any]])?.first)?["kid"] as? String)
        let rotated = try await AuthdBinary.run(["keys", "rotate"] + url)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        // "new current signing key KID (EdDSA)": the access tokens' key.
        let line = try #require(rotated.stdout.split(separator: "\n").first { $0.hasSuffix("(EdDSA)") })
        let newKid = String(line.split(separator: " ")[4])
        for base in [baseA, baseB] {
            var kids: [String] = []
            for _ in 0..<50 {
                let jwks = try await HTTP.json(base, "GET", "/.well-known/jwks.json")
                kids = (jwks.body["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
                if kids.first == newKid { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(kids == [newKid, oldKid])
        }
        let jwks = try await HTTP.json(baseB, "GET", "/.well-known/jwks.json")
        let maxAge = try #require(jwks.headers["Cache-Control"]?.split(separator: "=").last.flatMap { Int($0) })
        #expect(maxAge <= 30)
        let fresh = try await HTTP.json(baseB, "POST", "/login", ["username": "alice", "password": Self.password])
        let freshAccess = try #require(fresh.body["access_token"] as? String)
        #expect(Self.kid(of: freshAccess) == newKid)
        // Tokens of the previous key still verify; the new key's tokens verify on the other instance.
        #expect(try await HTTP.json(baseB, "GET", "/me", bearer: keptAccess).status == 200)
        #expect(try await HTTP.json(baseA, "GET", "/me", bearer: freshAccess).status == 200)
        let listed = try await AuthdBinary.run(["keys", "list"] + url)
        #expect(listed.stdout.contains("\(newKid)"))
        #expect(listed.stdout.split(separator: "\n").first { $0.contains(newKid) }?.contains("current") == true)
        #expect(listed.stdout.split(separator: "\n").first { $0.contains(oldKid) }?.contains("published") == true)

        // Behind a proxy: only A believes X-Forwarded-For from 127.0.0.1.
        let forwarded = ["X-Forwarded-For": "198.51.100.7, 203.0.113.9"]
        let viaA = try await HTTP.json(baseA, "POST", "/login", ["username": "alice", "password": Self.password], headers: forwarded)
        let viaB = try await HTTP.json(baseB, "POST", "/login", ["username": "alice", "password": Self.password], headers: forwarded)
        let metrics = try await HTTP.text(baseA, "/metrics")
        #expect(metrics.contains(#"authd_logins_total{result="success"}"#))
        #expect(metrics.contains(#"authd_throttled_requests_total 1"#))

        #expect(try await AuthdBinary.stop(a) == 0)
        #expect(try await AuthdBinary.stop(b) == 0)

        // The audit log has every event, with addresses and request ids, and no secret.
        let audit = try await AuthdBinary.run(["audit", "--limit", "200"] + url)
        #expect(audit.status == 0, "\(audit.stderr)")
        for kind in ["login_succeeded", "login_failed", "login_throttled", "token_refreshed", "refresh_reuse_detected", "key_rotated"] {
            #expect(audit.stdout.contains(kind), "\(kind)")
        }
        let requestA = try #require(viaA.headers["X-Request-Id"])
        let requestB = try #require(viaB.headers["X-Request-Id"])
        #expect(audit.stdout.split(separator: "\n").first { $0.contains(requestA) }?.contains("203.0.113.9") == true)
        #expect(audit.stdout.split(separator: "\n").first { $0.contains(requestB) }?.contains("127.0.0.1") == true)
        let mallory = try await AuthdBinary.run(["audit", "--user", "Mallory", "--limit", "5"] + url)
        let rows = mallory.stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == 5)
        #expect(rows.allSatisfy { $0.contains("mallory") })
        for output in [audit.stdout, audit.stderr, a.standardError, b.standardError] {
            #expect(!output.contains(Self.password))
            #expect(!output.contains(first))
            #expect(!output.contains(oldAccess))
        }
    }

    static func kid(of token: String) -> String? {
        guard let header = token.split(separator: ".").first, let data = Base64URL.decode(header),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }
}

/// Small HTTP helpers over URLSession.
enum HTTP {
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: [String: Any]
    }

    static func json(
        _ base: URL, _ method: String, _ path: String, _ body: [String: String]? = nil,
        headers: [String: String] = [:], bearer: String? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: base.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = method
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return Answer(status: http?.statusCode ?? 0, headers: fields, body: object)
    }

    static func text(_ base: URL, _ path: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent(String(path.dropFirst())))
        return String(decoding: data, as: UTF8.self)
    }
}
