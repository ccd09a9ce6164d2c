import AuthCore
import Foundation
import Hummingbird

extension AuthError {
    /// The HTTP status this error is sent with.
    public var status: Int {
        switch code {
        case .invalidRequest: 400
        case .invalidCredentials, .accountDisabled, .invalidToken: 401
        case .tooManyAttempts: 429
        case .serviceUnavailable: 503
        default: 500
        }
    }

    /// The wire form: `{"error", "error_description"}` with `Cache-Control: no-store` and the
    /// headers the status calls for (`WWW-Authenticate`, `Retry-After`).
    ///
    /// ```swift
    /// AuthError.invalidCredentials.response()   // 401 {"error":"invalid_credentials",…}
    /// ```
    public func response() -> Response {
        var headers = HTTPFields()
        if status == 401 {
            headers[.wwwAuthenticate] = code == .invalidToken ? #"Bearer realm="authd", error="invalid_token""# : #"Bearer realm="authd""#
        }
        if let retryAfter {
            headers[.retryAfter] = String(retryAfter)
        }
        return ErrorBody(error: code.rawValue, errorDescription: description).response(status: status, headers: headers)
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
        return ErrorBody(error: code, errorDescription: description).response(status: status, headers: headers)
    }
}

/// The one error body: `{"error": code, "error_description": text}`.
struct ErrorBody: Encodable {
    let error: String
    let errorDescription: String

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }

    func response(status: Int, headers: HTTPFields) -> Response {
        JSONResponse.make(status: .init(code: status), body: self, headers: headers)
    }
}
