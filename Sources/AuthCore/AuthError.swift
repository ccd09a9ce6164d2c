import Foundation

/// An error the login service reports to its clients.
///
/// Every error has a stable snake_case ``code`` (the `error` field of the wire format,
/// following RFC 6749 §5.2), the HTTP ``status`` it is sent with, and a human-readable
/// ``description`` that never contains a secret.
///
/// ```swift
/// throw AuthError.invalidRequest("username must be a string")
/// // → 400 {"error":"invalid_request","error_description":"username must be a string"}
/// ```
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case invalidRequest
        case invalidCredentials
        case accountDisabled
        case invalidToken
        case requestTooLarge
        case unsupportedMediaType
        case tooManyAttempts
        case serviceUnavailable
        case notFound
        case methodNotAllowed
        case internalError
    }

    private let kind: Kind
    /// The text sent as `error_description`.
    public let description: String
    /// Seconds a client should wait before trying again (`Retry-After`), where that applies.
    public let retryAfter: Int?
    /// The methods a path supports (`Allow`), for ``methodNotAllowed(allow:)``.
    public let allow: [String]

    private init(_ kind: Kind, _ description: String, retryAfter: Int? = nil, allow: [String] = []) {
        self.kind = kind
        self.description = description
        self.retryAfter = retryAfter
        self.allow = allow
    }

    /// The stable machine-readable code, sent as `error`.
    public var code: String {
        switch kind {
        case .invalidRequest: "invalid_request"
        case .invalidCredentials: "invalid_credentials"
        case .accountDisabled: "account_disabled"
        case .invalidToken: "invalid_token"
        case .requestTooLarge: "request_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .tooManyAttempts: "too_many_attempts"
        case .serviceUnavailable: "service_unavailable"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .internalError: "server_error"
        }
    }

    /// The HTTP status code this error is sent with.
    public var status: Int {
        switch kind {
        case .invalidRequest: 400
        case .invalidCredentials, .accountDisabled, .invalidToken: 401
        case .notFound: 404
        case .methodNotAllowed: 405
        case .requestTooLarge: 413
        case .unsupportedMediaType: 415
        case .tooManyAttempts: 429
        case .internalError: 500
        case .serviceUnavailable: 503
        }
    }

    /// The request is malformed; `description` names the field at fault.
    public static func invalidRequest(_ description: String) -> AuthError {
        AuthError(.invalidRequest, description)
    }

    /// The username or password is wrong; deliberately does not say which.
    public static let invalidCredentials = AuthError(.invalidCredentials, "The username or password is incorrect.")

    /// The password was right but the account is disabled.
    public static let accountDisabled = AuthError(.accountDisabled, "The account is disabled.")

    /// A bearer or refresh token is unknown, expired or revoked.
    public static let invalidToken = AuthError(.invalidToken, "The token is invalid or has expired.")

    /// The request body is larger than the service accepts.
    public static func requestTooLarge(limit: Int? = nil) -> AuthError {
        AuthError(.requestTooLarge, limit.map { "The request body must not exceed \($0) bytes." } ?? "The request body is too large.")
    }

    /// The request body is not `application/json`.
    public static let unsupportedMediaType = AuthError(
        .unsupportedMediaType, "The request body must be JSON sent with Content-Type: application/json."
    )

    /// Too many failed attempts; the client should wait `retryAfter` seconds.
    public static func tooManyAttempts(retryAfter: Int) -> AuthError {
        AuthError(.tooManyAttempts, "Too many failed login attempts. Try again later.", retryAfter: max(1, retryAfter))
    }

    /// A dependency (the database, the hashing capacity) is unavailable for now.
    public static func serviceUnavailable(_ description: String = "The service is temporarily unavailable.", retryAfter: Int = 1) -> AuthError {
        AuthError(.serviceUnavailable, description, retryAfter: retryAfter)
    }

    /// No route has this path.
    public static let notFound = AuthError(.notFound, "No resource exists at this path.")

    /// The path exists but not with this method.
    public static func methodNotAllowed(allow: [String]) -> AuthError {
        AuthError(.methodNotAllowed, "This method is not allowed here. Allowed: \(allow.joined(separator: ", ")).", allow: allow)
    }

    /// An unexpected failure; the description never carries details of it.
    public static let internalError = AuthError(.internalError, "An unexpected error occurred.")
}
