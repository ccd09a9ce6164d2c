import AuthCore
import Foundation
import Hummingbird

extension AuthError: HTTPResponseError {
    /// The HTTP status this error is sent with.
    public var status: HTTPResponse.Status {
        switch code {
        case .invalidRequest, .invalidGrant, .unsupportedGrantType, .unauthorizedClient: .badRequest
        case .invalidCredentials, .accountDisabled, .invalidToken, .mfaRequired, .invalidClient, .insufficientUserAuthentication:
            .unauthorized
        case .notFound: .notFound
        case .usernameTaken, .emailTaken, .totpAlreadyEnabled, .linkRequired, .identityTaken: .conflict
        case .weakPassword: .unprocessableContent
        case .tooManyAttempts: .tooManyRequests
        case .serviceUnavailable: .serviceUnavailable
        default: .internalServerError
        }
    }

    /// The wire form: `{"error", "error_description"}` (and `mfa_token` with
    /// `mfa_required`) with `Cache-Control: no-store` and the
    /// headers the status calls for (`WWW-Authenticate`, `Retry-After`).
    ///
    /// ```swift
    /// AuthError.invalidCredentials.response()   // 401 {"error":"invalid_credentials",…}
    /// ```
    public func response() -> Response {
        var headers = HTTPFields()
        if status == .unauthorized {
            headers[.wwwAuthenticate] =
                switch code {
                case .invalidToken: #"Bearer realm="authd", error="invalid_token""#
                // RFC 9470 §3: the challenge says how recent the authentication must be.
                case .insufficientUserAuthentication:
                    #"Bearer realm="authd", error="insufficient_user_authentication", max_age="# + String(maxAge ?? 0)
                // A relying party authenticates with HTTP Basic (RFC 6749 §5.2).
                case .invalidClient: #"Basic realm="authd""#
                default: #"Bearer realm="authd""#
                }
        }
        if let retryAfter {
            headers[.retryAfter] = String(retryAfter)
        }
        return ErrorBody(code: code, description: description, mfaToken: mfaToken, linkToken: linkToken).response(
            status: status, headers: headers)
    }
}

extension HTTPRequestError {
    /// The wire form, the same shape as ``AuthCore/AuthError``'s, with `Allow` for 405.
    ///
    /// ```swift
    /// HTTPRequestError.notFound.response()   // 404 {"error":"not_found",…}
    /// ```
    public func response() -> Response {
        var headers = HTTPFields()
        if !allow.isEmpty { headers[.allow] = allow.joined(separator: ", ") }
        if closesConnection { headers[.connection] = "close" }
        return ErrorBody(code: code, description: description).response(status: status, headers: headers)
    }
}

/// The one error body: `{"error": code, "error_description": text}`, and the `mfa_token`
/// of the second step with `mfa_required`.
struct ErrorBody: Encodable {
    let error: String
    let errorDescription: String
    let mfaToken: String?
    let linkToken: String?

    init(code: AuthError.Code, description: String, mfaToken: String? = nil, linkToken: String? = nil) {
        self.error = code.rawValue
        self.errorDescription = description
        self.mfaToken = mfaToken
        self.linkToken = linkToken
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case mfaToken = "mfa_token"
        case linkToken = "link_token"
    }

    func response(status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        JSONResponse.make(status: status, body: self, headers: headers)
    }
}
