import AuthCore
import AuthPostgres
import AuthTestSupport
import Crypto
import Foundation
import Synchronization
import Testing

/// The login rules on PostgreSQL (a migrated database per test), without the HTTP routes;
/// the router tests in AuthServerTests prove them through the routes.
@Suite struct LoginServiceTests {
    static let light = Argon2idHasher.Parameters.testLight
    static let password = "correct horse battery staple"

    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    /// At normal priority, not authd's nice 19, so these tests' hashes do not wait behind the
    /// rest of the suite.
    let pool = BlockingWorkPool(width: 2, queueLimit: 8, niceness: 0)

    func service(
        _ storage: PostgresStorage, parameters: Argon2idHasher.Parameters = light, throttle: ThrottlePolicy = ThrottlePolicy(),
        timing: FailureTiming = FailureTiming()
    ) async throws -> LoginService<PostgresStorage> {
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: clock)
        try issuer.install(try await KeyService(storage: storage, keyEncryptionKey: .generate(), clock: clock).ensureKey())
        return try await LoginService.make(
            storage: storage, issuer: issuer,
            hashing: PasswordHashing(hasher: Argon2idHasher(parameters: parameters), pool: pool), throttle: throttle,
            refreshLifetime: 2_592_000, sessionMaxAge: 7_776_000, clock: clock, timing: timing
        )
    }

    @discardableResult
    func addUser(
        _ name: String, in storage: PostgresStorage, parameters: Argon2idHasher.Parameters = light, disabled: Bool = false
    ) async throws -> User {
        let username = try Username(name)
        let user = try await storage.users.create(
            username: username, passwordHash: try Argon2idHasher(parameters: parameters).hash(Self.password), at: clock.now)
        if disabled { _ = try await storage.users.setDisabled(true, usernameKey: username.key, at: clock.now) }
        return user
    }

    @Test func issuesATokenPairAndStoresOnlyTheRefreshHash() async throws {
        try await TestCluster.withStorage { storage in
            let alice = try await addUser("alice", in: storage)
            let grant = try await service(storage).login(
                username: "ALICE", password: Self.password, origin: RequestOrigin(clientAddress: "192.0.2.1"))
            #expect(grant.expiresIn == 900)
            let owners = try await storage.refreshTokenOwners()
            #expect(owners.count == 1)
            #expect(owners[SHA256.hexDigest(of: grant.refreshToken)] == alice.id)
            #expect(owners[grant.refreshToken] == nil)
        }
    }

    @Test func anUnknownUserCostsAHashAndCountsAsAFailure() async throws {
        try await TestCluster.withStorage { storage in
            let service = try await service(storage)
            let before = await pool.load().completed
            await #expect(throws: AuthError.invalidCredentials) {
                try await service.login(username: "nobody", password: Self.password, origin: RequestOrigin(clientAddress: nil))
            }
            // The same verification work as a wrong password: one hash job on the pool.
            #expect(await pool.load().completed == before + 1)
            let key = ThrottlePolicy().keys(usernameKey: "nobody", address: nil).account
            #expect(try await storage.attempts(for: key) == 1)
        }
    }

    /// A password typed into the username box names no account: the audit log keeps the
    /// failure and the address, never what was typed; a real account's name is kept.
    @Test func whatWasTypedForNoAccountIsNeverAudited() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage)
            let service = try await service(storage, throttle: ThrottlePolicy(accountLimit: 1, addressLimit: 100, window: 60))
            for name in ["Tr0ub4dor&3", "Tr0ub4dor&3", "alice", "alice"] {
                _ = try? await service.login(username: name, password: "wrong password", origin: RequestOrigin(clientAddress: "192.0.2.1"))
            }
            let audited = try await storage.auditEvents()
            let events = audited.map { "\($0.kind.rawValue) \($0.usernameKey ?? "-") \($0.detail ?? "-")" }
            #expect(
                events == [
                    "login_failed - unknown_user", "login_throttled - -", "login_failed alice wrong_password", "login_throttled alice -",
                ])
            #expect(!audited.contains { ($0.usernameKey ?? "").contains("tr0ub4dor") })
        }
    }

    @Test func aWrongPasswordAndAnUnknownUserLookAlike() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage)
            let service = try await service(storage)
            var errors: [AuthError] = []
            for name in ["alice", "nobody"] {
                do {
                    _ = try await service.login(username: name, password: "wrong password", origin: RequestOrigin(clientAddress: nil))
                } catch let error as AuthError {
                    errors.append(error)
                }
            }
            #expect(errors == [.invalidCredentials, .invalidCredentials])
        }
    }

    @Test func throttlesAfterTheLimitUntilTheWindowEnds() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage)
            let service = try await service(storage, throttle: ThrottlePolicy(accountLimit: 3, addressLimit: 100, window: 60))
            for _ in 0..<3 {
                await #expect(throws: AuthError.invalidCredentials) {
                    try await service.login(username: "alice", password: "wrong", origin: RequestOrigin(clientAddress: "192.0.2.1"))
                }
            }
            do {
                _ = try await service.login(username: "alice", password: Self.password, origin: RequestOrigin(clientAddress: "192.0.2.1"))
                Issue.record("expected too_many_attempts")
            } catch let error as AuthError {
                #expect(error.code == .tooManyAttempts)
                #expect(error.retryAfter == 60)
            }
            clock.advance(by: 61)
            _ = try await service.login(username: "alice", password: Self.password, origin: RequestOrigin(clientAddress: "192.0.2.1"))
        }
    }

    @Test func aSuccessClearsTheUsernamesCountersAndGivesBackItsAddressAttempt() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage)
            let policy = ThrottlePolicy(accountLimit: 3, addressLimit: 100, window: 60)
            let service = try await service(storage, throttle: policy)
            for _ in 0..<2 {
                _ = try? await service.login(username: "alice", password: "wrong", origin: RequestOrigin(clientAddress: "192.0.2.1"))
            }
            _ = try await service.login(username: "alice", password: Self.password, origin: RequestOrigin(clientAddress: "192.0.2.1"))
            let keys = policy.keys(usernameKey: "alice", address: "192.0.2.1")
            #expect(try await storage.attempts(for: keys.account) == 0)
            #expect(try await storage.attempts(for: try #require(keys.pair)) == 0)
            #expect(try await storage.attempts(for: try #require(keys.address)) == 2)
        }
    }

    /// A distributed attacker (a new address for every ten guesses) against one username:
    /// fifty guesses per window from every address together, and each window used up
    /// doubles the next (15 min, 30 min, 1 h … up to a day). Over a day of trying as fast
    /// as the answers allow, 350 passwords are checked (seven windows), not 9,600.
    @Test func aDistributedAttackGetsABoundedNumberOfGuessesWithGrowingWaits() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("victim", in: storage)
            let service = try await service(storage, throttle: ThrottlePolicy())
            let start = clock.now
            var (checked, waits, address) = (0, [Int](), 0)
            while clock.now.timeIntervalSince(start) < 86_400 {
                address += 1
                let origin = RequestOrigin(clientAddress: "198.18.\(address / 256).\(address % 256)")
                for _ in 0..<10 {
                    do {
                        _ = try await service.login(username: "victim", password: "guess", origin: origin)
                    } catch let error as AuthError where error.code == .invalidCredentials {
                        checked += 1
                    } catch let error as AuthError where error.code == .tooManyAttempts {
                        let wait = error.retryAfter ?? 0
                        waits.append(wait)
                        clock.advance(by: TimeInterval(wait))
                        break
                    }
                }
            }
            #expect(Array(waits.prefix(6)) == [900, 1_800, 3_600, 7_200, 14_400, 28_800])
            #expect(checked == 350, "\(checked) guesses checked in a day")
        }
    }

    /// Twenty tries at a throttled username write one `login_throttled` event, not twenty.
    @Test func theThrottledTriesOfAWindowAreAuditedOnce() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage)
            let service = try await service(storage, throttle: ThrottlePolicy(pairLimit: 1, accountLimit: 1, addressLimit: 100, window: 60))
            let before = await pool.load().completed
            for _ in 0..<20 {
                _ = try? await service.login(
                    username: "alice", password: "wrong password", origin: RequestOrigin(clientAddress: "192.0.2.1"))
            }
            #expect(try await storage.auditEvents().map(\.kind) == [.loginFailed, .loginThrottled])
            #expect(await pool.load().completed - before == 1, "one password checked")
        }
    }

    /// An account whose stored hash is stronger than the current parameters (kept, never
    /// downgraded) takes longer to verify, so every failure is padded to that account's
    /// time: a wrong password for it, one for an account with current parameters, and an
    /// unknown username (one verification of the dummy hash) each ask to wait out the rest
    /// of the strong hash's estimate, and a success waits for nothing. The waits are
    /// recorded, not slept, and the strong estimate is set to hours, so the test reads the
    /// padding's amount and never a stopwatch: the machine's load cannot move it.
    @Test func everyFailureWaitsOutTheSlowestStoredHash() async throws {
        try await TestCluster.withStorage { storage in
            let strong = Argon2idHasher.Parameters(memoryKiB: 2_048, iterations: 2, parallelism: 1)
            try await addUser("current", in: storage)
            try await addUser("strong", in: storage, parameters: strong)
            let waits = Mutex<[Duration]>([])
            let timing = FailureTiming { duration in waits.withLock { $0.append(duration) } }
            let service = try await service(
                storage, throttle: ThrottlePolicy(pairLimit: 100, accountLimit: 100, addressLimit: 100), timing: timing)
            #expect(timing.estimate(for: strong) == nil)
            try await service.measureStoredHashParameters()
            #expect(timing.estimate(for: strong) != nil, "measured before any login meets a strong hash")

            timing.record(.seconds(36_000), for: strong)
            for name in ["current", "nobody", "strong"] {
                let (before, hashed) = (waits.withLock(\.count), await pool.load().completed)
                await #expect(throws: AuthError.invalidCredentials) {
                    try await service.login(username: name, password: "wrong password", origin: RequestOrigin(clientAddress: "192.0.2.1"))
                }
                #expect(await pool.load().completed == hashed + 1, "\(name): one verification")
                let asked = waits.withLock { Array($0[before...]) }
                try #require(asked.count == 1, "\(name): \(asked)")
                // What the wait leaves out is the verification's own time: under a minute.
                let floor = try #require(timing.estimate(for: strong))
                #expect(timing.floor == floor)
                #expect(floor - asked[0] >= .zero && floor - asked[0] < .seconds(60), "\(name): waited \(asked[0]) of \(floor)")
            }
            _ = try await service.login(username: "current", password: Self.password, origin: RequestOrigin(clientAddress: "192.0.2.1"))
            #expect(waits.withLock(\.count) == 3, "a success is not padded")
        }
    }

    @Test func aDisabledAccountIsNamedOnlyWhenThePasswordIsRight() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage, disabled: true)
            let service = try await service(storage)
            await #expect(throws: AuthError.accountDisabled) {
                try await service.login(username: "alice", password: Self.password, origin: RequestOrigin(clientAddress: nil))
            }
            await #expect(throws: AuthError.invalidCredentials) {
                try await service.login(username: "alice", password: "wrong password", origin: RequestOrigin(clientAddress: nil))
            }
        }
    }

    @Test func aWeakerHashIsReplacedAfterASuccessfulLogin() async throws {
        try await TestCluster.withStorage { storage in
            let weak = Argon2idHasher.Parameters(memoryKiB: 512, iterations: 1, parallelism: 1)
            try await addUser("alice", in: storage, parameters: weak)
            _ = try await service(storage).login(username: "alice", password: Self.password, origin: RequestOrigin(clientAddress: nil))
            let stored = try #require(try await storage.users.user(withKey: "alice"))
            #expect(Argon2idHasher.parameters(of: stored.passwordHash) == Self.light)
            #expect(Argon2idHasher(parameters: Self.light).verify(Self.password, against: stored.passwordHash))
        }
    }

    @Test func aStrongerHashIsKept() async throws {
        try await TestCluster.withStorage { storage in
            let strong = Argon2idHasher.Parameters(memoryKiB: 2048, iterations: 2, parallelism: 1)
            let alice = try await addUser("alice", in: storage, parameters: strong)
            _ = try await service(storage).login(username: "alice", password: Self.password, origin: RequestOrigin(clientAddress: nil))
            let stored = try #require(try await storage.users.user(withKey: "alice"))
            #expect(stored.passwordHash == alice.passwordHash)
        }
    }

    /// A password is one password however its accents and spaces were typed (RFC 8265
    /// OpaqueString): set in NFC, it logs in typed in NFD or with a no-break space.
    @Test func aPasswordIsTheSameWhateverItsUnicodeSpelling() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = AccountService(
                storage: storage, hashing: PasswordHashing(hasher: Argon2idHasher(parameters: Self.light), pool: pool), clock: clock)
            try await accounts.create(username: "zoë", password: "cr\u{E8}me br\u{FB}l\u{E9}e pour deux")
            let service = try await service(storage)
            for typed in ["cre\u{300}me bru\u{302}le\u{301}e pour deux", "cr\u{E8}me\u{A0}br\u{FB}l\u{E9}e pour deux"] {
                #expect(
                    try await service.login(username: "zoë", password: typed, origin: RequestOrigin(clientAddress: nil)).tokenType
                        == "Bearer")
            }
            await #expect(throws: AuthError.invalidCredentials) {
                try await service.login(username: "zoë", password: "creme brulee pour deux", origin: RequestOrigin(clientAddress: nil))
            }
        }
    }

    /// A hash made before normalisation, of the NFD bytes typed then, still verifies, and is
    /// replaced at that login by the hash of the normalised form.
    @Test func aHashOfTheTypedFormStillVerifiesAndIsReplaced() async throws {
        try await TestCluster.withStorage { storage in
            let typed = "cre\u{300}me bru\u{302}le\u{301}e pour deux"
            let legacy = try Argon2idHasher(parameters: Self.light).hash(typed)
            _ = try await storage.users.create(username: try Username("zoë"), passwordHash: legacy, at: clock.now)
            let service = try await service(storage)
            _ = try await service.login(username: "zoë", password: typed, origin: RequestOrigin(clientAddress: nil))
            let stored = try #require(try await storage.users.user(withKey: "zoë")).passwordHash
            #expect(stored != legacy)
            #expect(Argon2idHasher(parameters: Self.light).verify(PasswordPolicy.normalized(typed), against: stored))
            // Now the NFC spelling works too.
            #expect(
                try await service.login(
                    username: "zoë", password: "cr\u{E8}me br\u{FB}l\u{E9}e pour deux", origin: RequestOrigin(clientAddress: nil)
                ).tokenType == "Bearer")
        }
    }

    /// The second verification depends on the password only: for a password whose forms
    /// differ, an unknown username costs the two verifications a wrong password costs.
    @Test func theTypedFormsCheckCostsTheSameForAnyUsername() async throws {
        try await TestCluster.withStorage { storage in
            try await addUser("alice", in: storage)
            let service = try await service(storage)
            var costs: [Int] = []
            for name in ["alice", "nobody"] {
                let before = await pool.load().completed
                _ = try? await service.login(username: name, password: "wro\u{308}ng password", origin: RequestOrigin(clientAddress: nil))
                costs.append(await pool.load().completed - before)
            }
            #expect(costs == [2, 2])
        }
    }
}
