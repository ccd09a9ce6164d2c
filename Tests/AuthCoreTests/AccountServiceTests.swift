import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import ProcessKit
import Testing

/// The account rules on PostgreSQL, without the command line; the CLI tests run them
/// through `authd user`.
@Suite struct AccountServiceTests {
    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let origin = RequestOrigin(clientAddress: "192.0.2.7", requestID: "r7")
    let pool = BlockingWorkPool(width: 1, queueLimit: 4)
    static let password = "correct horse battery staple"

    func accounts(_ storage: PostgresStorage) -> AccountService<PostgresStorage> {
        AccountService(storage: storage, hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: pool), clock: clock)
    }

    @Test func createsWithTheClockAndAudits() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            let alice = try await accounts.create(username: "Ame\u{301}lie", password: Self.password, origin: origin)
            #expect(alice.username == "Amélie")
            #expect(alice.createdAt == clock.now)
            #expect(Argon2idHasher().verify(Self.password, against: alice.passwordHash))
            #expect(!alice.passwordHash.contains(Self.password))
            let event = try #require(try await storage.auditEvents().last)
            #expect(event == SecurityEvent(kind: .userCreated, at: clock.now, userID: alice.id, usernameKey: "amélie", origin: origin))
        }
    }

    @Test func refusesTakenNamesAndWeakPasswords() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            try await accounts.create(username: "alice", password: Self.password)
            await #expect(throws: AuthError.usernameTaken) { try await accounts.create(username: "ALICE", password: Self.password) }
            await #expect(throws: AuthError.weakPassword("password must be at least 8 characters")) {
                try await accounts.create(username: "bob", password: "short")
            }
            await #expect(throws: AuthError.invalidRequest("username must not be empty")) {
                try await accounts.create(username: "", password: Self.password)
            }
            #expect(try await accounts.list().map(\.username) == ["alice"])
            #expect(try await storage.auditEvents().map(\.kind) == [.userCreated])
        }
    }

    @Test func setsPasswordsDisablesEnablesAndDeletes() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            let alice = try await accounts.create(username: "alice", password: Self.password)
            clock.advance(by: 60)
            #expect(try await accounts.disable(username: "Alice").isDisabled)
            clock.advance(by: 60)
            // Setting a password never changes whether the account is enabled.
            let reset = try await accounts.setPassword(username: "alice", password: "another good password")
            #expect(reset.isDisabled)
            #expect(Argon2idHasher().verify("another good password", against: reset.passwordHash))
            #expect(try await accounts.disable(username: "alice").isDisabled)
            #expect(try await accounts.enable(username: "alice").isDisabled == false)
            #expect(try await accounts.delete(username: "alice").id == alice.id)
            #expect(try await storage.users.user(withKey: "alice") == nil)

            let events = try await storage.auditEvents()
            #expect(events.map(\.kind) == [.userCreated, .userDisabled, .passwordSet, .userDisabled, .userEnabled, .userDeleted])
            // The deleted account's events keep its id, not its name.
            #expect(events.allSatisfy { $0.userID == alice.id && $0.usernameKey == nil })
            #expect(events.map(\.at) == [0, 60, 120, 120, 120, 120].map { Date(timeIntervalSince1970: 1_800_000_000 + $0) })
        }
    }

    /// What `authd user add` calls: a look-alike name is the same account, an invisible
    /// character refused before any hashing.
    @Test func theOperatorsCommandsMapAndRefuseNamesAsSignUpDoes() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            let alice = try await accounts.create(username: "alice", password: Self.password)
            await #expect(throws: AuthError.usernameTaken) { try await accounts.create(username: "ａｌｉｃｅ", password: Self.password) }
            await #expect { try await accounts.create(username: "ali\u{200B}ce", password: Self.password) } throws: { error in
                (error as? AuthError)?.description.contains("U+200B") == true
            }
            #expect(await pool.load().completed == 2)
            let (updated, created) = try await accounts.createOrSetPassword(username: "ＡＬＩＣＥ", password: "another good password")
            #expect(!created && updated.id == alice.id)
        }
    }

    @Test func createOrSetPasswordHashesOnceEitherWay() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            let (created, isNew) = try await accounts.createOrSetPassword(username: "alice", password: Self.password)
            #expect(isNew)
            #expect(await pool.load().completed == 1)
            try await accounts.disable(username: "alice")
            let (updated, wasNew) = try await accounts.createOrSetPassword(username: "ALICE", password: "another good password")
            #expect(!wasNew)
            #expect(updated.id == created.id && !updated.isDisabled)
            #expect(Argon2idHasher().verify("another good password", against: updated.passwordHash))
            #expect(await pool.load().completed == 2)
            // The operator's "sign in with this password" enables, as a step of its own.
            #expect(try await storage.auditEvents().map(\.kind) == [.userCreated, .userDisabled, .passwordSet, .userEnabled])
        }
    }

    /// Every way of setting a password goes through the one screen; the passwords
    /// are refused, a breached one only when the service has a breached list.
    @Test func everyPasswordSetIsScreened() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            let common = AuthError.weakPassword("password is one of the 10,000 most common passwords")
            try await accounts.create(username: "alice", password: Self.password)
            for weak in ["password", "12345678", "qwertyuiop"] {
                await #expect(throws: common) { try await accounts.create(username: "bob", password: weak) }
                await #expect(throws: common) { try await accounts.setPassword(username: "alice", password: weak) }
                await #expect(throws: common) { try await accounts.createOrSetPassword(username: "alice", password: weak) }
                await #expect(throws: common) { try await accounts.createOrSetPassword(username: "carol", password: weak) }
            }
            #expect(try await accounts.list().map(\.username) == ["alice"])
            let alice = try #require(try await storage.users.user(withKey: "alice"))
            #expect(Argon2idHasher().verify(Self.password, against: alice.passwordHash))
            #expect(try await storage.auditEvents().map(\.kind) == [.userCreated])

            let leaked = "a leaked passphrase"
            let folder = try TemporaryFolder("breached", files: ["pwned.txt": TestBreachedPasswords.text(breached: [leaked], filler: 1000)])
            defer { folder.remove() }
            let screened = AccountService(
                storage: storage, hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: pool),
                passwords: PasswordScreen(breached: try BreachedPasswordList(path: folder.appending("pwned.txt").path)), clock: clock
            )
            await #expect(throws: AuthError.weakPassword("password appears in a list of breached passwords")) {
                try await screened.setPassword(username: "alice", password: leaked)
            }
            try await accounts.setPassword(username: "alice", password: leaked)
        }
    }

    @Test func unknownAccountsAreNotFound() async throws {
        try await TestCluster.withStorage { storage in
            let accounts = accounts(storage)
            let missing = AuthError.notFound("no user named 'nobody'")
            await #expect(throws: missing) { try await accounts.disable(username: "nobody") }
            await #expect(throws: missing) { try await accounts.enable(username: "nobody") }
            await #expect(throws: missing) { try await accounts.delete(username: "nobody") }
            await #expect(throws: missing) { try await accounts.setPassword(username: "nobody", password: Self.password) }
            let events = try await storage.auditEvents()
            #expect(events.isEmpty)
        }
    }
}
