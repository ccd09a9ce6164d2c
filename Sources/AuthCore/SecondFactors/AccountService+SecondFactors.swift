import Foundation
import JOSE

extension AccountService {
    /// The account's second factors, for an operator.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    ///
    /// ```swift
    /// let credentials = try await accounts.credentials(username: "alice")
    /// ```
    public func credentials(username raw: String) async throws -> AccountCredentials {
        let username = try Username(raw)
        guard let user = try await storage.users.user(withKey: username.key) else { throw Self.noSuchUser(username) }
        return AccountCredentials(
            user: user, totp: try await storage.secondFactors.totpFactor(userID: user.id),
            recoveryCodesLeft: try await storage.secondFactors.recoveryCodesLeft(userID: user.id),
            passkeys: try await storage.passkeys.passkeys(ofUser: user.id)
        )
    }

    /// Turns TOTP off for an operator, with the recovery codes, when the owner lost the app
    /// and the codes (audited `totp_disabled`, detail `operator`); false when none was enrolled.
    /// - Throws: `invalid_request`, `not_found`, `service_unavailable`.
    ///
    /// ```swift
    /// let removed = try await accounts.removeTOTP(username: "alice")
    /// ```
    public func removeTOTP(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> (user: User, removed: Bool) {
        let username = try Username(raw)
        guard let user = try await storage.users.user(withKey: username.key) else { throw Self.noSuchUser(username) }
        guard try await storage.secondFactors.deleteTOTP(userID: user.id, whileUnchanged: nil) else { return (user, false) }
        try await storage.audit.record(
            SecurityEvent(
                kind: .totpDisabled, at: clock.now, userID: user.id, usernameKey: username.key, origin: origin, detail: "operator")
        )
        return (user, true)
    }

    /// Removes the account's passkey with this credential id (base64url) for an operator
    /// (audited `passkey_removed`, detail `operator`); false when it has none with that id.
    /// - Throws: `invalid_request`, `not_found` (no such account), `service_unavailable`.
    ///
    /// ```swift
    /// let (user, removed) = try await accounts.removePasskey(username: "alice", id: "3q2-7w")
    /// ```
    public func removePasskey(username raw: String, id: String, origin: RequestOrigin = RequestOrigin()) async throws -> (
        user: User, removed: Bool
    ) {
        let username = try Username(raw)
        guard let user = try await storage.users.user(withKey: username.key) else { throw Self.noSuchUser(username) }
        guard let bytes = Base64URL.decode(id) else { return (user, false) }
        return (user, try await removePasskey(bytes, of: user, origin: origin))
    }

    /// Removes every passkey of the account for an operator, each audited as
    /// ``removePasskey(username:id:origin:)`` does; returns how many there were.
    /// - Throws: `invalid_request`, `not_found` (no such account), `service_unavailable`.
    ///
    /// ```swift
    /// let (user, removed) = try await accounts.removePasskeys(username: "alice")
    /// ```
    public func removePasskeys(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> (user: User, removed: Int) {
        let username = try Username(raw)
        guard let user = try await storage.users.user(withKey: username.key) else { throw Self.noSuchUser(username) }
        var removed = 0
        for passkey in try await storage.passkeys.passkeys(ofUser: user.id)
        where try await removePasskey(passkey.id, of: user, origin: origin) {
            removed += 1
        }
        return (user, removed)
    }

    /// Turns TOTP off and removes every passkey for an operator, so that the account signs in
    /// with its password alone; each removal audited as ``removeTOTP(username:origin:)`` and
    /// ``removePasskeys(username:origin:)`` audit theirs.
    /// - Throws: `invalid_request`, `not_found` (no such account), `service_unavailable`.
    ///
    /// ```swift
    /// let (user, totp, passkeys) = try await accounts.removeTOTPAndPasskeys(username: "alice")
    /// ```
    public func removeTOTPAndPasskeys(username raw: String, origin: RequestOrigin = RequestOrigin()) async throws -> (
        user: User, totp: Bool, passkeys: Int
    ) {
        let (user, totp) = try await removeTOTP(username: raw, origin: origin)
        return (user, totp, try await removePasskeys(username: raw, origin: origin).removed)
    }

    private func removePasskey(_ id: Data, of user: User, origin: RequestOrigin) async throws -> Bool {
        guard try await storage.passkeys.delete(id: id, ofUser: user.id) else { return false }
        try await storage.audit.record(
            SecurityEvent(
                kind: .passkeyRemoved, at: clock.now, userID: user.id, usernameKey: user.usernameKey, origin: origin, detail: "operator")
        )
        return true
    }
}
