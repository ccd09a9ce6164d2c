import Foundation

/// An error the login service reports to its clients.
///
/// Every error has a stable ``code`` (its ``Code/rawValue`` is the `error` field of the wire
/// format, following RFC 6749 §5.2) and a human-readable ``description`` that never
/// contains a secret. Compare codes, not descriptions. Errors that only HTTP can produce
/// (no such path, wrong method, body too large, wrong media type) are the server's
/// `HTTPRequestError`, with codes of this same ``Code`` type.
///
/// ```swift
/// throw AuthError.invalidRequest("username must be a string")
/// // → 400 {"error":"invalid_request","error_description":"username must be a string"}
/// if error.code == .tooManyAttempts { wait(error.retryAfter) }
/// ```
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of error, stable for comparisons and on the wire (the pattern of `PSQLError.Code`).
    ///
    /// ```swift
    /// AuthError.accountDisabled.code == .accountDisabled   // true
    /// AuthError.Code.accountDisabled.rawValue              // "account_disabled"
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidRequest = "invalid_request"
            case invalidCredentials = "invalid_credentials"
            case accountDisabled = "account_disabled"
            case invalidToken = "invalid_token"
            case tooManyAttempts = "too_many_attempts"
            case serviceUnavailable = "service_unavailable"
            case internalError = "server_error"
            case usernameTaken = "username_taken"
            case emailTaken = "email_taken"
            case weakPassword = "weak_password"
            case notFound = "not_found"
            case methodNotAllowed = "method_not_allowed"
            case requestTooLarge = "request_too_large"
            case unsupportedMediaType = "unsupported_media_type"
            case requestHeaderFieldsTooLarge = "request_header_fields_too_large"
            case requestTimeout = "request_timeout"
            case mfaRequired = "mfa_required"
            case totpAlreadyEnabled = "totp_already_enabled"
            case invalidClient = "invalid_client"
            case invalidGrant = "invalid_grant"
            case unsupportedGrantType = "unsupported_grant_type"
            case unauthorizedClient = "unauthorized_client"
            case insufficientUserAuthentication = "insufficient_user_authentication"
            case linkRequired = "link_required"
            case identityTaken = "identity_taken"
        }

        private let base: Base

        /// The request is malformed.
        public static let invalidRequest = Code(base: .invalidRequest)
        /// Unknown user or wrong password.
        public static let invalidCredentials = Code(base: .invalidCredentials)
        /// Right password, disabled account.
        public static let accountDisabled = Code(base: .accountDisabled)
        /// A token is unknown, expired, revoked or badly signed.
        public static let invalidToken = Code(base: .invalidToken)
        /// Too many failures; wait.
        public static let tooManyAttempts = Code(base: .tooManyAttempts)
        /// A dependency is unavailable for now.
        public static let serviceUnavailable = Code(base: .serviceUnavailable)
        /// An unexpected failure.
        public static let internalError = Code(base: .internalError)
        /// The username is already registered (compared case-insensitively).
        public static let usernameTaken = Code(base: .usernameTaken)
        /// The email address belongs to another account (compared case-insensitively).
        public static let emailTaken = Code(base: .emailTaken)
        /// A password being set is refused by the password policy (too short, common or breached).
        public static let weakPassword = Code(base: .weakPassword)
        /// No such resource (an account, or, from the server, a path).
        public static let notFound = Code(base: .notFound)
        /// The path exists, the method does not (server only).
        public static let methodNotAllowed = Code(base: .methodNotAllowed)
        /// The body is larger than accepted (server only).
        public static let requestTooLarge = Code(base: .requestTooLarge)
        /// The body is not of an accepted media type (server only).
        public static let unsupportedMediaType = Code(base: .unsupportedMediaType)
        /// The request line or headers are too large (server only).
        public static let requestHeaderFieldsTooLarge = Code(base: .requestHeaderFieldsTooLarge)
        /// The request body did not arrive whole within the server's deadline (server only).
        public static let requestTimeout = Code(base: .requestTimeout)

        /// The password was right and a second factor is on: the login goes on at
        /// `POST /login/mfa` with the error's ``AuthError/mfaToken``.
        public static let mfaRequired = Code(base: .mfaRequired)
        /// TOTP is already on for the account: turn it off before enrolling another app.
        public static let totpAlreadyEnabled = Code(base: .totpAlreadyEnabled)
        /// A provider sign-in's verified email is an existing account's: nothing was linked;
        /// the owner proves the account and confirms with the error's ``AuthError/linkToken``.
        public static let linkRequired = Code(base: .linkRequired)
        /// The identity at the provider is linked to another account already.
        public static let identityTaken = Code(base: .identityTaken)

        /// A relying party's client authentication failed: unknown client, wrong secret, or
        /// none given where one is required (RFC 6749 §5.2).
        public static let invalidClient = Code(base: .invalidClient)
        /// The grant presented at `POST /oauth/token` (a refresh token) is invalid, expired,
        /// revoked or replayed (RFC 6749 §5.2).
        public static let invalidGrant = Code(base: .invalidGrant)
        /// `POST /oauth/token` does not offer this `grant_type` (RFC 6749 §5.2).
        public static let unsupportedGrantType = Code(base: .unsupportedGrantType)
        /// The client is not allowed this grant: one that does not sign users in asked for an
        /// `authorization_code` or a user's `refresh_token` (RFC 6749 §5.2).
        public static let unauthorizedClient = Code(base: .unauthorizedClient)
        /// The token's authentication is too old for what it asks (RFC 9470 §3): log in again.
        public static let insufficientUserAuthentication = Code(base: .insufficientUserAuthentication)

        /// The snake_case code sent as `error`.
        public var rawValue: String { base.rawValue }
        /// The snake_case code.
        public var description: String { base.rawValue }
    }

    /// The stable machine-readable code.
    public let code: Code
    /// The text sent as `error_description`.
    public let description: String
    /// Seconds a client should wait before trying again (`Retry-After`), where that applies.
    public let retryAfter: Int?
    /// With ``Code/mfaRequired``: the short-lived, single-use token of the second step
    /// (sent as `mfa_token`, never part of ``description``).
    public let mfaToken: String?
    /// With ``Code/linkRequired``: the short-lived, single-use token that confirms the link
    /// from a session of the account (sent as `link_token`).
    public let linkToken: String?
    /// With ``Code/insufficientUserAuthentication``: how recent, in seconds, the
    /// authentication must be (RFC 9470's `max_age`).
    public let maxAge: Int?

    private init(
        _ code: Code, _ description: String, retryAfter: Int? = nil, mfaToken: String? = nil, linkToken: String? = nil, maxAge: Int? = nil
    ) {
        self.code = code
        self.description = description
        self.retryAfter = retryAfter
        self.mfaToken = mfaToken
        self.linkToken = linkToken
        self.maxAge = maxAge
    }

    /// The request is malformed; `description` names the field at fault.
    public static func invalidRequest(_ description: String) -> AuthError {
        AuthError(.invalidRequest, description)
    }

    /// The username or password is wrong; deliberately does not say which.
    public static let invalidCredentials = AuthError(.invalidCredentials, "The username or password is incorrect.")

    /// A TOTP or recovery code is wrong, or was used already; deliberately does not say which.
    public static let invalidCode = AuthError(.invalidCredentials, "The code is incorrect.")

    /// A passkey's response does not verify (signature, challenge, origin, flags, counter),
    /// or names no passkey; deliberately does not say which.
    public static let passkeyRefused = AuthError(.invalidCredentials, "The passkey could not be verified.")

    /// The password was right and a second factor is on; the client goes on at
    /// `POST /login/mfa` with `token`.
    ///
    /// ```swift
    /// AuthError.mfaRequired(token: challenge.token)
    /// // → 401 {"error":"mfa_required","error_description":"…","mfa_token":"…"}
    /// ```
    public static func mfaRequired(token: String) -> AuthError {
        AuthError(.mfaRequired, "A second factor is required: send a code to POST /login/mfa with the mfa_token.", mfaToken: token)
    }

    /// A provider's ID token does not verify (signature, issuer, audience, expiry, nonce) or
    /// was used already; deliberately does not say which (the audit log does).
    public static let idTokenRefused = AuthError(.invalidCredentials, "The ID token could not be verified.")

    /// A provider sign-in's verified email is an existing account's: nothing was linked. The
    /// owner signs in to that account and confirms with `token` at `POST /me/identities`.
    ///
    /// ```swift
    /// AuthError.linkRequired(token: pending.token)
    /// // → 409 {"error":"link_required","error_description":"…","link_token":"…"}
    /// ```
    public static func linkRequired(token: String) -> AuthError {
        AuthError(
            .linkRequired,
            "An account with this email address exists: sign in to it, then link this identity with POST /me/identities and the link_token.",
            linkToken: token)
    }

    /// The identity at the provider is another account's: it is unlinked there first.
    public static let identityTaken = AuthError(
        .identityTaken, "This identity is linked to another account: unlink it there first.")

    /// TOTP is already on for the account.
    public static let totpAlreadyEnabled = AuthError(
        .totpAlreadyEnabled, "An authenticator app is already enrolled; turn it off (DELETE /mfa/totp) before enrolling another."
    )

    /// The password was right but the account is disabled.
    public static let accountDisabled = AuthError(.accountDisabled, "The account is disabled.")

    /// A bearer or refresh token is unknown, expired or revoked.
    public static let invalidToken = AuthError(.invalidToken, "The token is invalid or has expired.")

    /// Too many failed attempts; the client should wait `retryAfter` seconds.
    public static func tooManyAttempts(retryAfter: Int) -> AuthError {
        AuthError(.tooManyAttempts, "Too many failed login attempts. Try again later.", retryAfter: max(1, retryAfter))
    }

    /// Too many sign-ups from one address; the client should wait `retryAfter` seconds.
    public static func tooManySignUps(retryAfter: Int) -> AuthError {
        AuthError(.tooManyAttempts, "Too many sign-ups from this address. Try again later.", retryAfter: max(1, retryAfter))
    }

    /// A dependency (the database, the hashing capacity) is unavailable for now.
    public static func serviceUnavailable(_ description: String = "The service is temporarily unavailable.", retryAfter: Int = 1)
        -> AuthError
    {
        AuthError(.serviceUnavailable, description, retryAfter: retryAfter)
    }

    /// The username is taken (names are compared case-insensitively).
    public static let usernameTaken = AuthError(.usernameTaken, "This username is already taken.")

    /// The email address belongs to another account (compared case-insensitively).
    public static let emailTaken = AuthError(.emailTaken, "This email address is already used by another account.")

    /// Too many password resets or verifications from one address or for one account;
    /// the client should wait `retryAfter` seconds.
    public static func tooManyRecoveries(retryAfter: Int) -> AuthError {
        AuthError(.tooManyAttempts, "Too many requests of this kind. Try again later.", retryAfter: max(1, retryAfter))
    }

    /// A password being set is refused by the policy; `description` says why and never
    /// contains the password.
    ///
    /// ```swift
    /// AuthError.weakPassword("password is one of the 10,000 most common passwords")
    /// // → 422 {"error":"weak_password","error_description":"password is one of …"}
    /// ```
    public static func weakPassword(_ description: String) -> AuthError {
        AuthError(.weakPassword, description)
    }

    /// No account (or other resource) answers to what was named; `description` says what.
    public static func notFound(_ description: String) -> AuthError {
        AuthError(.notFound, description)
    }

    /// The client's id or secret is wrong, or no client authentication was given where one
    /// is required; deliberately does not say which.
    public static let invalidClient = AuthError(.invalidClient, "Client authentication failed.")

    /// The refresh token presented as a grant is unknown, expired, revoked or replayed
    /// (`POST /oauth/token`'s form of ``invalidToken``).
    public static let invalidGrant = AuthError(.invalidGrant, "The grant is invalid or has expired.")

    /// The token was issued by an authentication older than `maxAge` seconds (or by a
    /// refresh), and what it asks (a second factor, a passkey) needs a recent one: the client
    /// logs in again and retries with the new token (RFC 9470 step-up).
    public static func insufficientUserAuthentication(maxAge: Int) -> AuthError {
        AuthError(
            .insufficientUserAuthentication,
            "This needs a login within the last \(maxAge / 60) minutes: log in again and retry with the new access token.", maxAge: maxAge
        )
    }

    /// The client may not use this grant (RFC 6749 §5.2).
    public static let unauthorizedClient = AuthError(.unauthorizedClient, "This client does not sign users in.")

    /// `grant_type` names a grant authd does not offer.
    public static func unsupportedGrantType(_ description: String) -> AuthError {
        AuthError(.unsupportedGrantType, description)
    }

    /// An unexpected failure; the description never carries details of it.
    public static let internalError = AuthError(.internalError, "An unexpected error occurred.")
}
