import Foundation

/// The account rules: create, set a password, disable, enable, delete and list accounts,
/// each change validated, hashed off the caller's executor, stamped by the injected clock
/// and written to the audit log. `authd user …` and the HTTP routes only call it. Every
/// password it sets passes its ``passwords`` screen first.
///
/// ```swift
/// let screen = PasswordScreen(breached: try BreachedPasswordList(path: "pwnedpasswords.txt"))
/// let accounts = AccountService(storage: storage, hashing: PasswordHashing(pool: pool), passwords: screen, clock: clock)
/// let alice = try await accounts.create(username: "alice", password: "correct horse battery staple")
/// try await accounts.disable(username: "alice")
/// ```
public struct AccountService<Storage: AuthStorage>: Sendable {
    /// Accounts and the audit log.
    public let storage: Storage
    /// Where passwords are hashed.
    public let hashing: PasswordHashing
    /// The policy every password set here passes (length, common, breached).
    public let passwords: PasswordScreen
    /// The time source of creation, disabling and audit times.
    public let clock: any WallClock
    /// Tells the holder of an address someone signed up with (nil without a delivery URL).
    public let notices: OwnerNotices<Storage>?

    /// Creates the service; `passwords` defaults to the built-in rules without a breached list.
    public init(
        storage: Storage, hashing: PasswordHashing, passwords: PasswordScreen = PasswordScreen(), clock: any WallClock = SystemClock(),
        notices: OwnerNotices<Storage>? = nil
    ) {
        self.storage = storage
        self.hashing = hashing
        self.passwords = passwords
        self.clock = clock
        self.notices = notices
    }

    /// Creates an account, with an (unverified) email address if `email` is given. The name
    /// is width-mapped and held to ``Username/validateNew()``.
    /// - Throws: `invalid_request` (username, email or password malformed), `weak_password`
    ///   (refused by ``passwords``), `username_taken`, `email_taken`, `service_unavailable`.
    @discardableResult
    public func create(username raw: String, password: String, email: String? = nil, origin: RequestOrigin = RequestOrigin()) async throws
        -> User
    {
        let address = try email.map(EmailAddress.init)
        let (username, phc) = try await prepare(username: raw, password: password, new: true)
        return try await insert(username, phc, email: address, origin: origin)
    }

    /// Creates an account for someone signing up: as ``create(username:password:origin:)``,
    /// after reserving a sign-up against the client's address (`throttle`'s
    /// ``ThrottlePolicy/signupKey(address:)``) before any hashing. An address another account
    /// holds is not refused, which would tell anyone which addresses are registered: the
    /// account is made without it, answered the same, and the holder is sent an
    /// `account_already_exists` notice instead of the verification a new address gets.
    /// - Throws: as `create` (never `email_taken`), and `too_many_attempts` past the
    ///   address's sign-ups.
    ///
    /// ```swift
    /// let user = try await accounts.signUp(username: "alice", password: "…", email: nil, origin: origin, throttle: ThrottlePolicy())
    /// ```
    public func signUp(username raw: String, password: String, email: String? = nil, origin: RequestOrigin, throttle: ThrottlePolicy)
        async throws -> User
    {
        // A malformed name or address is refused before it takes a sign-up of the address.
        try Username(raw).validateNew()
        let address = try email.map(EmailAddress.init)
        if let key = throttle.signupKey(address: origin.clientAddress),
            let refusal = try await storage.loginAttempts.reserve([key], now: clock.now)
        {
            throw AuthError.tooManySignUps(retryAfter: refusal.retryAfter)
        }
        let (username, phc) = try await prepare(username: raw, password: password)
        do {
            return try await insert(username, phc, email: address, origin: origin)
        } catch let error as AuthError where error.code == .emailTaken {
            // Made again without the address (a name taken as well is username_taken, as it
            // would have been with a free address); its holder hears of it, the caller does not.
            let user = try await insert(username, phc, email: nil, origin: origin)
            if let address { try await notices?.notify(.accountAlreadyExists, account: .email(address)) }
            return user
        }
    }

    /// Sets an account's password (an operator's reset), ends every session of the account
    /// and uses up its reset links: a refresh token or a reset link taken before the reset
    /// stops working. Whether the account is enabled does not change.
    /// - Throws: `invalid_request`, `weak_password`, `not_found`, `service_unavailable`.
    @discardableResult
    public func setPassword(username raw: String, password: String, origin: RequestOrigin = RequestOrigin()) async throws -> User {
        let (username, phc) = try await prepare(username: raw, password: password)
        return try await replace(username, phc, origin: origin)
    }

    /// The owner's password change, after ``LoginService/confirmPassword(of:password:origin:)``
    /// checked the current one: the new hash is written only while the account is as that
    /// check saw it (the same hash, enabled), with every session ended and every reset link
    /// used up in the same step.
    /// - Throws: `invalid_credentials` when a reset, another change or a disabling came
    ///   between the check and the write; `invalid_request`, `weak_password`, `service_unavailable`.
    ///
    /// ```swift
    /// let checked = try await login.confirmPassword(of: user, password: current, origin: origin)
    /// let user = try await accounts.changePassword(of: checked, username: user.username, to: new, origin: origin)
    /// ```
    @discardableResult
    public func changePassword(of checked: CheckedAccount, username raw: String, to password: String, origin: RequestOrigin) async throws
        -> User
    {
        let (username, phc) = try await prepare(username: raw, password: password)
        guard
            let user = try await write(
                PasswordChange(userID: checked.userID, passwordHash: phc, replacing: checked.passwordHash, now: clock.now),
                username: username, reason: "password changed", origin: origin)
        else {
            throw AuthError.invalidCredentials
        }
        return user
    }

    /// Creates an account, or, when the name is taken, sets that account's password, ends
    /// its sessions and enables it (an operator making sure the account signs in with this
    /// password); the password is hashed once either way.
    /// - Returns: the account, and whether it was created.
    /// - Throws: `invalid_request`, `weak_password`, `service_unavailable`.
    public func createOrSetPassword(
        username raw: String, password: String, origin: RequestOrigin = RequestOrigin()
    ) async throws -> (user: User, created: Bool) {
        let (username, phc) = try await prepare(username: raw, password: password, new: true)
        do {
            return (try await insert(username, phc, email: nil, origin: origin), true)
        } catch let error as AuthError where error.code == .usernameTaken {
            let user = try await replace(username, phc, origin: origin)
            guard user.isDisabled else { return (user, false) }
            return (try await setDisabled(false, username: raw, origin: origin), false)
        }
    }

    /// Refuses further logins and refreshes of an account; its data stays.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    @discardableResult
    public func disable(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> User {
        try await setDisabled(true, username: raw, origin: origin)
    }

    /// Allows a disabled account again.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    @discardableResult
    public func enable(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> User {
        try await setDisabled(false, username: raw, origin: origin)
    }

    /// Deletes an account and its sessions; the audit log keeps its events with the
    /// account's id only (the username goes), ending with `user_deleted`.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    @discardableResult
    public func delete(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> User {
        let username = try Username(raw)
        guard let user = try await storage.users.delete(usernameKey: username.key) else { throw Self.noSuchUser(username) }
        return try await forget(user, origin: origin)
    }

    /// The owner's deletion, after a check of the password: made only while the account is
    /// as that check saw it (the same hash, enabled).
    /// - Throws: `invalid_credentials` when a reset, a change or a disabling came between the
    ///   check and the deletion; `service_unavailable`.
    @discardableResult
    public func delete(_ checked: CheckedAccount, origin: RequestOrigin) async throws -> User {
        guard let user = try await storage.users.delete(checked) else { throw AuthError.invalidCredentials }
        return try await forget(user, origin: origin)
    }

    /// The owner's deletion of an account with no password of its own (made by a provider
    /// sign-in), after a recent authentication instead of a password check.
    /// - Throws: `invalid_request` when the account has a password (which it must give), or
    ///   changed or was disabled since it was read; `service_unavailable`.
    @discardableResult
    public func deleteWithoutPassword(_ checked: CheckedAccount, origin: RequestOrigin) async throws -> User {
        guard let user = try await storage.users.deleteWithoutPassword(checked) else {
            throw AuthError.invalidRequest("password is required")
        }
        return try await forget(user, origin: origin)
    }

    /// The audit log after a deletion: the account's events keep its id only.
    private func forget(_ user: User, origin: RequestOrigin) async throws -> User {
        try await storage.audit.forgetUsername(ofUser: user.id)
        try await storage.audit.record(SecurityEvent(kind: .userDeleted, at: clock.now, userID: user.id, origin: origin))
        return user
    }

    /// The live sessions of an account, newest first.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    ///
    /// ```swift
    /// let (user, sessions) = try await accounts.sessions(username: "alice")
    /// ```
    public func sessions(username raw: String) async throws -> (user: User, sessions: [Session]) {
        let username = try Username(raw)
        guard let user = try await storage.users.user(withKey: username.key) else { throw Self.noSuchUser(username) }
        return (user, try await storage.refreshTokens.sessions(ofUser: user.id, now: clock.now))
    }

    /// Every account, oldest first.
    public func list() async throws -> [User] {
        try await storage.users.all()
    }

    /// The validated username and the hash of the password ``passwords`` passes. A `new` name
    /// (one to register) is held to ``Username/validateNew()`` too, before the password is hashed.
    private func prepare(username raw: String, password: String, new: Bool = false) async throws -> (Username, String) {
        let username = try Username(raw)
        if new { try username.validateNew() }
        return (username, try await hashing.hash(password, screenedBy: passwords))
    }

    /// Stores a new account; `username` has passed ``Username/validateNew()``.
    private func insert(_ username: Username, _ phc: String, email: EmailAddress?, origin: RequestOrigin) async throws -> User {
        let user: User
        do {
            user = try await storage.users.create(username: username, email: email, passwordHash: phc, at: clock.now)
        } catch let error as RepositoryError where error == .duplicateUsername {
            throw AuthError.usernameTaken
        } catch let error as RepositoryError where error == .duplicateEmail {
            throw AuthError.emailTaken
        }
        try await record(.userCreated, user: user, username: username, origin: origin)
        return user
    }

    private func replace(_ username: Username, _ phc: String, origin: RequestOrigin) async throws -> User {
        guard let found = try await storage.users.user(withKey: username.key),
            let user = try await write(
                PasswordChange(userID: found.id, passwordHash: phc, replacing: nil, now: clock.now),
                username: username, reason: "password set", origin: origin)
        else {
            throw Self.noSuchUser(username)
        }
        return user
    }

    /// Writes `change` and audits it; nil when it changed nothing. The sessions end in the
    /// same transaction as the hash is stored, so a login racing the change with the old
    /// password either finished before (and its session is ended here) or fails.
    private func write(_ change: PasswordChange, username: Username, reason: String, origin: RequestOrigin) async throws -> User? {
        guard let (user, revoked) = try await storage.accountTokens.setPassword(change) else { return nil }
        try await record(.passwordSet, user: user, username: username, origin: origin)
        try await recordEnded(revoked, of: user, username: username, reason: reason, origin: origin)
        return user
    }

    /// Ends every session of an account: its refresh tokens stop working at once (access
    /// tokens already issued run out within their lifetime).
    /// - Returns: the account and how many sessions were ended.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    @discardableResult
    public func revokeSessions(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> (user: User, revoked: Int) {
        let username = try Username(raw)
        guard let user = try await storage.users.user(withKey: username.key) else { throw Self.noSuchUser(username) }
        return (user, try await endSessions(of: user, username: username, reason: "by an operator", origin: origin))
    }

    @discardableResult
    private func endSessions(of user: User, username: Username, reason: String, origin: RequestOrigin) async throws -> Int {
        let revoked = try await storage.refreshTokens.revokeAll(ofUser: user.id, now: clock.now)
        try await recordEnded(revoked, of: user, username: username, reason: reason, origin: origin)
        return revoked
    }

    private func recordEnded(_ revoked: Int, of user: User, username: Username, reason: String, origin: RequestOrigin) async throws {
        if revoked > 0 {
            try await storage.audit.record(
                SecurityEvent(
                    kind: .sessionsRevoked, at: clock.now, userID: user.id, usernameKey: username.key, origin: origin,
                    detail: "\(reason): \(revoked) \(revoked == 1 ? "session" : "sessions")"
                )
            )
        }
    }

    private func setDisabled(_ disabled: Bool, username raw: String, origin: RequestOrigin) async throws -> User {
        let username = try Username(raw)
        guard let user = try await storage.users.setDisabled(disabled, usernameKey: username.key, at: clock.now) else {
            throw Self.noSuchUser(username)
        }
        try await record(disabled ? .userDisabled : .userEnabled, user: user, username: username, origin: origin)
        return user
    }

    private func record(_ kind: SecurityEvent.Kind, user: User, username: Username, origin: RequestOrigin) async throws {
        try await storage.audit.record(
            SecurityEvent(kind: kind, at: clock.now, userID: user.id, usernameKey: username.key, origin: origin)
        )
    }

    static func noSuchUser(_ username: Username) -> AuthError {
        AuthError.notFound("no user named '\(username)'")
    }
}
