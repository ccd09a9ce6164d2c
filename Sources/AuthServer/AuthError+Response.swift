import AuthCore
import Foundation
import Hummingbird

extension AuthError {
    /// The wire form: `{"error", "error_description"}` with `Cache-Control: no-store` and the
    /// headers the status calls for (`WWW-Authenticate`, `Retry-After`, `Allow`).
    ///
    /// ```swift
    /// AuthError.notFound.response()   // 404 {"error":"not_found",…}
    /// ```
    public func response() -> Response {
        var headers = HTTPFields()
        switch status {
        case 401:
            headers[.wwwAuthenticate] =
                code == "invalid_token" ? #"Bearer realm="authd", error="invalid_token""# : #"Bearer realm="authd""#
        case 405:
            headers[.allow] = allow.joined(separator: ", ")
        default:
            break
        }
        if let retryAfter {
            headers[.retryAfter] = String(retryAfter)
        }
        return JSONResponse.make(status: .init(code: status), body: Body(error: code, errorDescription: description), headers: headers)
    }

    private struct Body: Encodable {
        let error: String
        let errorDescription: String

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }
}
