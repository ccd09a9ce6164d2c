import AuthTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `authd serve` on a primary and its streaming replica, named as libpq names several
/// servers (the replica first), while logins run: a switchover (the primary stops, the replica is promoted)
/// costs only 503s with Retry-After until the promoted replica takes writes, with no
/// restart, and loses no session a login answered.
@Suite struct ReplicaFailoverTests {
    static let password = "correct horse battery staple"

    @Test func loginsFollowAPromotedReplicaWithOnly503sBetweenAndNothingLost() async throws {
        let pair = try await ReplicatedCluster.start("authd-failover")
        defer { pair.remove() }
        let (primary, standby) = (pair.primary.socketDirectory, pair.standby.socketDirectory)
        // The standby first: authd passes over it for the server that takes writes.
        let url = ["--database-url", "postgresql://authd@/authd?host=\(standby),\(primary)"]
        let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
        #expect(try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + light, input: Self.password).status == 0)
        try await pair.waitForReplay()

        let replica = ["--database-read-url", "postgresql://authd@/authd?host=\(standby)"]
        let answers = try await AuthdBinary.withServer(url + replica + light) { base in
            let log = Shared(Log())
            try await withThrowingTaskGroup(of: Void.self) { group in
                defer { log.withLock { $0.done = true } }
                for _ in 0..<2 {
                    group.addTask {
                        while !log.withLock({ $0.done }) {
                            let answer = try await HTTP.json(base, "POST", "/login", ["username": "alice", "password": Self.password])
                            log.withLock { $0.record(answer) }
                        }
                    }
                }
                try await Polling.until("five logins before the switchover", every: .milliseconds(20), within: .seconds(60)) {
                    log.withLock { $0.tokens.count >= 5 }
                }
                try await pair.switchOver()
                log.withLock { $0.switched = true }
                try await Polling.until("ten logins after the switchover", every: .milliseconds(20), within: .seconds(60)) {
                    log.withLock { $0.tokensAfterSwitch >= 10 }
                }
                log.withLock { $0.done = true }
                try await group.waitForAll()
            }
            let (statuses, tokens, access) = log.withLock { ($0.statuses, $0.tokens, $0.lastAccessToken) }
            // The replica named for reads is the primary now, and answers them.
            let me = try await HTTP.json(base, "GET", "/me", bearer: access)
            // Every session a login answered is there: its refresh token works once.
            var refreshed: [Int] = []
            for token in tokens {
                refreshed.append(try await HTTP.json(base, "POST", "/token/refresh", ["refresh_token": token]).status)
            }
            return (statuses, refreshed, me.status)
        }
        let (statuses, refreshed, me) = answers.value
        #expect(answers.status == 0)
        #expect(statuses.allSatisfy { $0 == "200" || $0 == "503 1" }, "\(Set(statuses))")
        #expect(refreshed.allSatisfy { $0 == 200 }, "\(refreshed)")
        #expect(refreshed.count >= 15)
        #expect(me == 200)
    }

    /// What the logins got: each answer's status (a 503 with its Retry-After), the refresh
    /// tokens of the 200s, and whether the switchover has happened.
    struct Log {
        var statuses: [String] = []
        var tokens: [String] = []
        var lastAccessToken: String?
        var switched = false
        var tokensAfterSwitch = 0
        var done = false

        mutating func record(_ answer: HTTP.Answer) {
            statuses.append(answer.status == 503 ? "503 \(answer.headers["Retry-After"] ?? "-")" : "\(answer.status)")
            guard answer.status == 200, let token = answer.body["refresh_token"] as? String else { return }
            tokens.append(token)
            lastAccessToken = answer.body["access_token"] as? String
            if switched { tokensAfterSwitch += 1 }
        }
    }

    /// A value the login tasks share.
    final class Shared<Value: Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
    }
}
