import Foundation

/// One row of the audit log: what happened, to whom, from where. Never a secret: no
/// password, token, hash or key, only ids, the username key and public key ids.
///
/// ```swift
/// let event = SecurityEvent(kind: .loginSucceeded, at: clock.now, userID: user.id, usernameKey: "alice")
/// try await storage.audit.record(event)
/// ```
public struct SecurityEvent: Sendable, Equatable {
    /// What happened; its ``rawValue`` is stored and printed by `authd audit`.
    public enum Kind: String, Sendable, CaseIterable {
        /// A login with the right password for an enabled account.
        case loginSucceeded = "login_succeeded"
        /// A login refused: unknown user, wrong password or disabled account (see `detail`).
        case loginFailed = "login_failed"
        /// A login refused because a throttle key is over its limit.
        case loginThrottled = "login_throttled"
        /// A refresh token exchanged for a new pair.
        case tokenRefreshed = "token_refreshed"
        /// A rotated refresh token presented again: its family was revoked.
        case refreshReuseDetected = "refresh_reuse_detected"
        /// A logout revoked a token family.
        case loggedOut = "logged_out"
        /// An account was created.
        case userCreated = "user_created"
        /// An account's password was set by an operator (the account is enabled too).
        case passwordSet = "password_set"
        /// An account was deleted (the event keeps its id and username key).
        case userDeleted = "user_deleted"
        /// An operator disabled an account.
        case userDisabled = "user_disabled"
        /// An operator enabled an account.
        case userEnabled = "user_enabled"
        /// An operator rotated the signing key (`detail` is the new `kid`).
        case keyRotated = "key_rotated"
        /// An operator revoked the current signing key, leaked (`detail` is its `kid`): it
        /// was deleted at once, so it is no longer published.
        case keyRevoked = "key_revoked"
        /// Every session of an account was ended: by a password change or by an operator
        /// (`detail` says which, and how many).
        case sessionsRevoked = "sessions_revoked"
        /// A password reset was asked; recorded whether or not an account answered (as the
        /// request's answer is the same), with the account only when one did.
        case passwordResetRequested = "password_reset_requested"
        /// A reset token was used: the account's password was replaced and its sessions ended.
        case passwordReset = "password_reset"
        /// An email address was proved by its verification token.
        case emailVerified = "email_verified"
        /// The owner asked to change the account's address (`detail`: whether a token went
        /// to the new one; the address itself is not kept).
        case emailChangeRequested = "email_change_requested"
        /// A new address was proved by its email-change token and is now the account's.
        case emailChanged = "email_changed"
        /// A message was given up on (its token expired before the delivery URL took it;
        /// `detail` says why it failed last).
        case deliveryAbandoned = "delivery_abandoned"
        /// The password was right and a second factor was asked (an `mfa_token` issued);
        /// the login ends in `login_succeeded` (`detail` names the factor) or `login_failed`.
        case secondFactorRequired = "second_factor_required"
        /// TOTP was turned on (its first code confirmed, recovery codes issued).
        case totpEnabled = "totp_enabled"
        /// TOTP was turned off (`detail`: what proved it: `code`, `password` or `operator`).
        case totpDisabled = "totp_disabled"
        /// A passkey was registered (`detail`: its credential id, base64url).
        case passkeyRegistered = "passkey_registered"
        /// A passkey was removed (`detail`: its credential id; `operator` when an operator did).
        case passkeyRemoved = "passkey_removed"
        /// A passkey signed with a counter at or below the stored one: the credential may
        /// have been cloned; the login was refused (`detail`: its credential id).
        case passkeySignCountRegressed = "passkey_sign_count_regressed"
        /// An operator registered a relying party (`detail`: its client id).
        case clientRegistered = "client_registered"
        /// An operator removed a relying party (`detail`: its client id).
        case clientRemoved = "client_removed"
        /// A relying party got a token of its own with `client_credentials` (`detail`: its client id).
        case clientTokenIssued = "client_token_issued"
        /// A relying party revoked a token of its own (`detail`: its client id).
        case clientTokenRevoked = "client_token_revoked"
        /// An identity at a provider was linked to the account (`detail`: the provider's
        /// name and how: `created` with a new account, `confirmed` after the account was
        /// proved, `signed_in` from a signed-in session).
        case identityLinked = "identity_linked"
        /// An identity was unlinked (`detail`: the provider's name).
        case identityUnlinked = "identity_unlinked"
        /// A provider sign-in's verified email is this account's: nothing was linked, and
        /// the owner must prove the account to link it (`detail`: the provider's name).
        case identityLinkRequired = "identity_link_required"
        /// An unverified email address of this account was given up to a provider sign-in
        /// that proved it (`detail`: the provider's name).
        case unverifiedEmailReleased = "unverified_email_released"
        /// An operator added or replaced a provider (`detail`: its name).
        case providerAdded = "provider_added"
        /// An operator removed a provider (`detail`: its name and the identities unlinked).
        case providerRemoved = "provider_removed"
        /// An email sign-in code was asked; recorded whether or not a verified address
        /// answered (as the answer is the same), with the account only when one did.
        case emailSignInRequested = "email_sign_in_requested"
        /// A provider's refresh token of the account was revoked at the provider (its
        /// identity went, or a newer token replaced it; `detail`: the provider's name).
        case providerTokenRevoked = "provider_token_revoked"
        /// A provider's refresh token could not be revoked and was given up on (`detail`: the
        /// provider's name and why).
        case providerRevocationAbandoned = "provider_revocation_abandoned"
    }

    /// What happened.
    public var kind: Kind
    /// When.
    public var at: Date
    /// The account, when known.
    public var userID: UUID?
    /// The username key (lower-cased name), when known.
    public var usernameKey: String?
    /// The client's address and the request id, when the event came from a request.
    public var origin: RequestOrigin
    /// A short, secret-free detail (a failure reason, a key id).
    public var detail: String?

    /// Creates an event.
    public init(
        kind: Kind, at: Date, userID: UUID? = nil, usernameKey: String? = nil,
        origin: RequestOrigin = RequestOrigin(), detail: String? = nil
    ) {
        self.kind = kind
        self.at = at
        self.userID = userID
        self.usernameKey = usernameKey
        self.origin = origin
        self.detail = detail
    }
}
