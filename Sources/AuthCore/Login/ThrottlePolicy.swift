import Crypto
import Foundation

/// One counter of failed logins: per account or per client address.
///
/// The subject is stored only as a SHA-256 digest, so a password typed into the
/// username field never lands in storage.
///
/// ```swift
/// let key = ThrottleKey(scope: .account, subject: "alice", limit: 10, window: 900)
/// ```
public struct ThrottleKey: Sendable, Hashable {
    /// What is counted.
    public enum Scope: String, Sendable {
        /// Consecutive failures for one username (existing or not).
        case account
        /// Failures from one client address.
        case address
    }

    /// What is counted.
    public let scope: Scope
    /// Hex SHA-256 of the subject (username key or address).
    public let subjectDigest: String
    /// Failures allowed within ``window`` before attempts are refused.
    public let limit: Int
    /// Length of the counting window, in seconds.
    public let window: Int

    /// Creates a key for `subject`.
    public init(scope: Scope, subject: String, limit: Int, window: Int) {
        self.scope = scope
        self.subjectDigest = SHA256.hexDigest(of: subject)
        self.limit = limit
        self.window = window
    }
}

/// Limits on failed logins: after `accountLimit` failures for one username, or
/// `addressLimit` failures from one address, within `window` seconds, logins are answered
/// with 429 until the window ends. A successful login clears the account counter.
///
/// ```swift
/// let policy = ThrottlePolicy(accountLimit: 10, addressLimit: 100, window: 900)
/// ```
public struct ThrottlePolicy: Sendable, Equatable {
    /// Failures per username within the window.
    public var accountLimit: Int
    /// Failures per client address within the window.
    public var addressLimit: Int
    /// Window length in seconds.
    public var window: Int

    /// Creates a policy.
    public init(accountLimit: Int = 10, addressLimit: Int = 100, window: Int = 900) {
        self.accountLimit = accountLimit
        self.addressLimit = addressLimit
        self.window = window
    }

    /// The counters a login attempt touches.
    public func keys(usernameKey: String, address: String?) -> (account: ThrottleKey, all: [ThrottleKey]) {
        let account = ThrottleKey(scope: .account, subject: usernameKey, limit: accountLimit, window: window)
        guard let address else { return (account, [account]) }
        let byAddress = ThrottleKey(scope: .address, subject: address, limit: addressLimit, window: window)
        return (account, [account, byAddress])
    }
}
