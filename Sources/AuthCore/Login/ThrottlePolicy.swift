import Crypto
import Foundation

/// One counter of login attempts: per username, per client address, or per username from
/// one address.
///
/// The subject is stored only as a digest: HMAC-SHA256 under a secret key when one is
/// given (authd derives it from its key-encryption key), so that a reader of the counters
/// cannot test guesses of what was typed into the username field; plain SHA-256 otherwise.
///
/// ```swift
/// let key = ThrottleKey(scope: .account, subject: "alice", limit: 50, window: 900, maxWindow: 86_400, digestKey: secret)
/// ```
public struct ThrottleKey: Sendable, Hashable {
    /// What is counted.
    public enum Scope: String, Sendable {
        /// Attempts for one username (existing or not), from every address.
        case account
        /// Attempts from one client address, for every username.
        case address
        /// Attempts for one username from one client address.
        case pair
        /// Sign-ups from one client address.
        case signup
        /// Passwords presented again by a signed-in account (a password change, a deletion).
        case reauthentication
        /// Password resets asked and account tokens presented from one client address.
        case recovery
        /// Password resets asked for one username or email address, from every address.
        case recoveryTarget = "recovery_target"
        /// Codes presented for one account at the second step of a login (TOTP or
        /// recovery codes), from every address.
        case secondFactor = "second_factor"
    }

    /// What is counted.
    public let scope: Scope
    /// Hex HMAC-SHA256 (or SHA-256) of the subject (username key, address, or both).
    public let subjectDigest: String
    /// Attempts allowed within a window; past them, attempts are refused until it ends.
    public let limit: Int
    /// Length of the first counting window, in seconds.
    public let window: Int
    /// The longest a window grows to: each window whose attempts were all used doubles the
    /// next one, up to this. Equal to ``window`` for a key whose windows never grow.
    public let maxWindow: Int

    /// Creates a key for `subject`.
    public init(scope: Scope, subject: String, limit: Int, window: Int, maxWindow: Int? = nil, digestKey: SymmetricKey? = nil) {
        self.scope = scope
        self.subjectDigest = digestKey.map { HMAC<SHA256>.hexCode(for: subject, using: $0) } ?? SHA256.hexDigest(of: subject)
        self.limit = limit
        self.window = window
        self.maxWindow = max(window, maxWindow ?? window)
    }

    /// The length of the window that follows `lockouts` windows used up in a row.
    public func windowLength(afterLockouts lockouts: Int) -> Int {
        // 2^20 windows exceed any sane maximum; the cap keeps the shift in range.
        let grown = window.multipliedReportingOverflow(by: 1 << min(max(lockouts, 0), 20))
        return grown.overflow ? maxWindow : min(grown.partialValue, maxWindow)
    }
}

/// The counters one login attempt touches, for ``LoginAttemptStore/reserve(_:now:)``.
///
/// ```swift
/// let keys = ThrottlePolicy().keys(usernameKey: "alice", address: "203.0.113.9")
/// keys.all.count   // 3: the username, the username from this address, this address
/// ```
public struct ThrottleKeys: Sendable, Equatable {
    /// The username, from every address.
    public let account: ThrottleKey
    /// The username from this address (nil when the address is unknown).
    public let pair: ThrottleKey?
    /// This address, for every username (nil when the address is unknown).
    public let address: ThrottleKey?
    /// The account's re-authentication counter, once the account is known: a successful
    /// login clears it too.
    public var reauthentication: ThrottleKey? = nil
    /// The account's second-factor counter, once the account is known: only a login
    /// completed with a second factor clears it (a right password does not).
    public var secondFactor: ThrottleKey? = nil

    /// Every key a password attempt reserves, in a fixed order.
    public var all: [ThrottleKey] { [account] + [pair, address].compactMap { $0 } }

    /// What a right password clears, whether or not a second factor is still asked: the
    /// username's counters, here and everywhere.
    public var clearedByPassword: [ThrottleKey] { [account] + [pair].compactMap { $0 } }

    /// What a successful login clears: the username's counters, here and everywhere, and
    /// the account's re-authentication and second-factor counters.
    public var clearedBySuccess: [ThrottleKey] { [account] + [pair, reauthentication, secondFactor].compactMap { $0 } }

    /// What a successful login gives back without clearing: its attempt from this address.
    public var releasedBySuccess: [ThrottleKey] { [address].compactMap { $0 } }
}

/// Limits on login attempts. An attempt is reserved against every key before its password
/// is checked, so a burst cannot outrun the limits; a successful login clears the
/// username's counters and gives back its attempt from the address.
///
/// - From one address, `pairLimit` attempts per username per window: an attacker at one
///   address runs out there and cannot lock the owner out at another.
/// - From every address, `accountLimit` attempts per username per window, and each window
///   whose attempts were all used doubles the next one, up to `maxAccountWindow`: a
///   distributed attacker gets a bounded number of guesses per username.
/// - From one address, `addressLimit` attempts per window over every username.
/// - An address the username logged in from within ``knownAddressLifetime`` is not refused
///   by the username's lockout from every address (the one a distributed attacker runs up),
///   only by its own pair and address limits.
///
/// ```swift
/// let policy = ThrottlePolicy(pairLimit: 10, accountLimit: 50, addressLimit: 100, window: 900)
/// ```
public struct ThrottlePolicy: Sendable, Equatable {
    /// Attempts per username from one address within the window.
    public var pairLimit: Int
    /// Attempts per username from every address within the window.
    public var accountLimit: Int
    /// Attempts from one address within the window.
    public var addressLimit: Int
    /// A relying party's authentications from one address within the window (``clientKeys(clientID:address:)``).
    public var clientLimit = 100
    /// Window length in seconds.
    public var window: Int
    /// The longest window of a username whose windows keep being used up, in seconds.
    public var maxAccountWindow: Int
    /// Sign-ups from one client address within ``signupWindow``.
    public var signupLimit = 10
    /// The window of ``signupLimit``, seconds.
    public var signupWindow = 3_600
    /// Password resets asked and account tokens presented (reset confirmations, email
    /// verifications) from one client address within ``recoveryWindow``.
    public var recoveryLimit = 20
    /// Password resets asked for one username or email address within ``recoveryWindow``,
    /// from every address: how many messages an attacker can make authd send one person.
    public var recoveryTargetLimit = 5
    /// The window of the recovery limits, seconds.
    public var recoveryWindow = 3_600
    /// How long after a username's last successful login from an address a login from there
    /// is exempt from the username's lockout from every address, seconds (30 days); also
    /// how long retention keeps the address.
    public static let knownAddressLifetime = 2_592_000
    /// The secret the counters' subjects are digested under (HMAC-SHA256); nil for plain
    /// SHA-256. `buildApplication` derives it from the key-encryption key.
    public var digestKey: SymmetricKey?

    /// Creates a policy; the defaults are those of docs/01-operating-authd.md ("Throttling").
    public init(pairLimit: Int = 10, accountLimit: Int = 50, addressLimit: Int = 100, window: Int = 900, maxAccountWindow: Int = 86_400) {
        self.pairLimit = pairLimit
        self.accountLimit = accountLimit
        self.addressLimit = addressLimit
        self.window = window
        self.maxAccountWindow = maxAccountWindow
        self.digestKey = nil
    }

    /// The counters a login attempt touches.
    public func keys(usernameKey: String, address: String?) -> ThrottleKeys {
        let account = ThrottleKey(
            scope: .account, subject: usernameKey, limit: accountLimit, window: window, maxWindow: maxAccountWindow, digestKey: digestKey
        )
        guard let address else { return ThrottleKeys(account: account, pair: nil, address: nil) }
        // The separator cannot occur in a username key nor in an address.
        let pair = ThrottleKey(
            scope: .pair, subject: "\(usernameKey)\u{0}\(address)", limit: pairLimit, window: window, digestKey: digestKey)
        return ThrottleKeys(account: account, pair: pair, address: addressKey(address))
    }

    /// The counters a relying party's authentication touches: the client id from this
    /// address (``clientLimit`` attempts a window; as ``ThrottleKeys/account``, what a success
    /// clears) and this address (``addressLimit``, shared with logins). No counter of the id
    /// from every address: with one, anyone who knows a client id could lock the client out
    /// from a few addresses, and a client secret (256 random bits, or 32 characters at least)
    /// needs no more than a per-address limit. The attempts in flight count too, so the limit
    /// is also how many authentications one address may have at once.
    public func clientKeys(clientID: String, address: String?) -> ThrottleKeys {
        // The separators cannot occur in a client id nor in an address.
        let client = ThrottleKey(
            scope: .pair, subject: "client\u{0}\(clientID)\u{0}\(address ?? "")", limit: clientLimit, window: window, digestKey: digestKey)
        return ThrottleKeys(account: client, pair: nil, address: addressKey(address))
    }

    /// The counter of login attempts from `address`, for every username (nil when the
    /// address is unknown): what a passkey login, which names no username, reserves.
    public func addressKey(_ address: String?) -> ThrottleKey? {
        address.map { ThrottleKey(scope: .address, subject: $0, limit: addressLimit, window: window, digestKey: digestKey) }
    }

    /// The counter of passwords a signed-in account presents again (`POST /password`,
    /// `DELETE /me`): ``pairLimit`` failures per window, growing as the username's does,
    /// whatever the address; a successful login or re-authentication clears it. Apart
    /// from the login's counters, so a stolen access token's guesses lock no login out.
    public func reauthenticationKey(userID: UUID) -> ThrottleKey {
        ThrottleKey(
            scope: .reauthentication, subject: userID.uuidString.lowercased(), limit: pairLimit, window: window,
            maxWindow: maxAccountWindow, digestKey: digestKey
        )
    }

    /// The counter of codes presented for one account (`POST /login/mfa`, and the codes
    /// that turn TOTP on or off): ``pairLimit`` failures per window, growing as the
    /// username's does, whatever the address; only a completed login clears it, so a
    /// thief who knows the password cannot reset it by logging in again.
    public func secondFactorKey(userID: UUID) -> ThrottleKey {
        ThrottleKey(
            scope: .secondFactor, subject: userID.uuidString.lowercased(), limit: pairLimit, window: window,
            maxWindow: maxAccountWindow, digestKey: digestKey
        )
    }

    /// The counter a sign-up from `address` takes (nil when the address is unknown): every
    /// sign-up counts, successful or not.
    public func signupKey(address: String?) -> ThrottleKey? {
        address.map { ThrottleKey(scope: .signup, subject: $0, limit: signupLimit, window: signupWindow, digestKey: digestKey) }
    }

    /// The counter a password reset request or a presented account token from `address`
    /// takes (nil when the address is unknown): every one counts.
    public func recoveryKey(address: String?) -> ThrottleKey? {
        address.map { ThrottleKey(scope: .recovery, subject: $0, limit: recoveryLimit, window: recoveryWindow, digestKey: digestKey) }
    }

    /// The counter a password reset request for `target` (a username key, or an email key
    /// prefixed with `email:`) takes, whoever asks and whether or not the account exists.
    public func recoveryTargetKey(_ target: String) -> ThrottleKey {
        ThrottleKey(scope: .recoveryTarget, subject: target, limit: recoveryTargetLimit, window: recoveryWindow, digestKey: digestKey)
    }
}
