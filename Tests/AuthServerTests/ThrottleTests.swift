import AuthCore
import AuthServer
import AuthTestSupport
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct ThrottleTests {
    static let password = "correct horse battery staple"

    @Test func repeatedFailuresForOneAccountGet429UntilTheWindowEnds() async throws {
        var fixture = try await ServerFixture()
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        fixture.configuration.clock = clock
        fixture.configuration.throttle = ThrottlePolicy(accountLimit: 3, addressLimit: 100, window: 60)
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.addUser("bob", password: Self.password)
        try await fixture.test { client async throws in
            for _ in 0..<3 {
                #expect(try await client.login("alice", "wrong").status == .unauthorized)
            }
            // Even the right password is refused now, without revealing it was right.
            let throttled = try await client.login("alice", Self.password)
            #expect(throttled.status == .tooManyRequests)
            #expect(try throttled.error().code == "too_many_attempts")
            #expect(throttled.headers[.retryAfter] == "60")
            #expect(throttled.headers[.cacheControl] == "no-store")
            // Case and normalisation do not give a way around it.
            #expect(try await client.login("ALICE", Self.password).status == .tooManyRequests)
            // Other accounts are unaffected.
            #expect(try await client.login("bob", Self.password).status == .ok)

            clock.advance(by: 61)
            #expect(try await client.login("alice", Self.password).status == .ok)
        }
    }

    @Test func aSuccessResetsTheAccountCounter() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.throttle = ThrottlePolicy(accountLimit: 3, addressLimit: 100, window: 600)
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            for _ in 0..<2 { _ = try await client.login("alice", "wrong") }
            #expect(try await client.login("alice", Self.password).status == .ok)
            for _ in 0..<2 { _ = try await client.login("alice", "wrong") }
            #expect(try await client.login("alice", Self.password).status == .ok)
        }
    }

    @Test func unknownAccountsAreThrottledLikeKnownOnes() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.throttle = ThrottlePolicy(accountLimit: 2, addressLimit: 100, window: 600)
        try await fixture.test { client async throws in
            for _ in 0..<2 { #expect(try await client.login("ghost", "wrong").status == .unauthorized) }
            #expect(try await client.login("ghost", "wrong").status == .tooManyRequests)
        }
    }

    /// Forty wrong passwords for one username sent at once, with a limit of ten: ten are
    /// checked against the hash and thirty refused before any hashing, because each
    /// attempt is reserved in PostgreSQL before its password is checked.
    @Test func aBurstOfGuessesIsHashedNoMoreThanTheLimit() async throws {
        var fixture = try await ServerFixture()
        let pool = BlockingWorkPool(width: 2, queueLimit: 64)
        fixture.configuration.hashingPool = pool
        fixture.configuration.throttle = ThrottlePolicy(pairLimit: 10, accountLimit: 10, addressLimit: 100, window: 900)
        try await fixture.addUser("alice", password: Self.password)
        let (statuses, hashed) = try await fixture.test { client async throws in
            let before = await pool.load().completed
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<40 {
                    group.addTask { try await client.login("alice", "guess number \(index)").status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            return (statuses, await pool.load().completed - before)
        }
        #expect(hashed == 10)
        #expect(statuses.filter { $0 == .unauthorized }.count == 10)
        #expect(statuses.filter { $0 == .tooManyRequests }.count == 30)
    }

    /// What was typed into the username box is counted under a keyed digest: the table
    /// holds no SHA-256 of it, which a reader could match against guesses.
    @Test func countersHoldNoUnkeyedDigestOfWhatWasTyped() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            #expect(try await client.login("Tr0ub4dor&3", "wrong").status == .unauthorized)
        }
        let digests = try await fixture.withDatabase { database async throws in
            var digests: [String] = []
            for try await digest in try await database.client.query("SELECT subject_digest FROM login_failures").decode(String.self) {
                digests.append(digest)
            }
            return digests
        }
        #expect(!digests.isEmpty)
        #expect(!digests.contains(SHA256.hexDigest(of: "tr0ub4dor&3")))
    }

    /// Ten wrong passwords for a victim's username from one address lock that address out
    /// for that username; the owner, at another address, still logs in; the attacker's
    /// refusals are audited once, not once per try.
    @Test func anAttackerAtOneAddressCannotLockTheOwnerOutAtAnother() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.port = 0
        fixture.configuration.trustedProxies = try TrustedProxies(["127.0.0.0/8", "::1/128"])
        try await fixture.addUser("victim", password: Self.password)
        let app = try await fixture.application()
        try await app.test(.live) { client async throws in
            let attacker = "203.0.113.66"
            let owner = "198.51.100.7"
            for _ in 0..<10 {
                #expect(try await client.login("victim", "a guess", from: attacker).status == .unauthorized)
            }
            for _ in 0..<5 {
                let refused = try await client.login("victim", Self.password, from: attacker)
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers[.retryAfter].flatMap(Int.init).map { $0 > 800 && $0 <= 900 } == true)
            }
            #expect(try await client.login("victim", Self.password, from: owner).status == .ok)
        }
        let kinds = try await fixture.auditKinds()
        #expect(kinds.filter { $0 == "login_failed" }.count == 10)
        #expect(kinds.filter { $0 == "login_throttled" }.count == 1)
    }
}

extension ThrottleTests {
    /// Attackers at two addresses use up the username's attempts from every address; the
    /// owner still logs in where they logged in within 30 days, and only there, under that
    /// address's own limit.
    @Test func aDistributedAttackerCannotLockTheOwnerOutWhereTheyLoggedInBefore() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.port = 0
        fixture.configuration.trustedProxies = try TrustedProxies(["127.0.0.0/8", "::1/128"])
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        fixture.configuration.clock = clock
        fixture.configuration.throttle = ThrottlePolicy(pairLimit: 3, accountLimit: 6, addressLimit: 100, window: 600)
        try await fixture.addUser("victim", password: Self.password)
        let app = try await fixture.application()
        try await app.test(.live) { client async throws in
            let home = "198.51.100.7"
            let lastYear = "198.51.100.8"
            let elsewhere = "192.0.2.9"
            #expect(try await client.login("victim", Self.password, from: lastYear).status == .ok)
            clock.advance(by: TimeInterval(ThrottlePolicy.knownAddressLifetime) + 60)
            #expect(try await client.login("victim", Self.password, from: home).status == .ok)

            for attacker in ["203.0.113.1", "203.0.113.2"] {
                for _ in 0..<3 { #expect(try await client.login("victim", "a guess", from: attacker).status == .unauthorized) }
            }
            #expect(try await client.login("victim", Self.password, from: "203.0.113.3").status == .tooManyRequests)
            #expect(try await client.login("victim", Self.password, from: elsewhere).status == .tooManyRequests)
            #expect(try await client.login("victim", Self.password, from: lastYear).status == .tooManyRequests)
            #expect(try await client.login("victim", Self.password, from: home).status == .ok)

            // Locked out again: from home, wrong passwords still meet home's own limit.
            for attacker in ["203.0.113.4", "203.0.113.5"] {
                for _ in 0..<3 { _ = try await client.login("victim", "a guess", from: attacker) }
            }
            for _ in 0..<3 { #expect(try await client.login("victim", "a guess", from: home).status == .unauthorized) }
            #expect(try await client.login("victim", Self.password, from: home).status == .tooManyRequests)
        }
    }
}

@Suite struct LiveThrottleTests {
    @Test func throttlesByClientAddress() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.port = 0
        fixture.configuration.throttle = ThrottlePolicy(accountLimit: 100, addressLimit: 3, window: 600)
        try await fixture.addUser("alice", password: ThrottleTests.password)
        let app = try await fixture.application()
        try await app.test(.live) { client async throws in
            for name in ["u1", "u2", "u3"] {
                #expect(try await client.login(name, "wrong").status == .unauthorized)
            }
            let throttled = try await client.login("alice", ThrottleTests.password)
            #expect(throttled.status == .tooManyRequests)
        }
    }
}

extension TestClientProtocol {
    /// Logs in as if from `address`, through a trusted proxy's `X-Forwarded-For`.
    func login(_ username: String, _ password: String, from address: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["username": username, "password": password])
        return try await postJSON("/login", String(decoding: body, as: UTF8.self), from: address)
    }

    /// POSTs `json` as if from `address`, through a trusted proxy's `X-Forwarded-For`.
    func postJSON(_ path: String, _ json: String, from address: String) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[HTTPField.Name("X-Forwarded-For")!] = address
        return try await postJSON(path, json, headers: headers)
    }
}
