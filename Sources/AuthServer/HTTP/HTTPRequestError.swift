import AuthCore
import Hummingbird

/// An error only HTTP can produce: no route at the path, a method the path does not
/// serve, a body too large, too slow or not JSON, or a request the HTTP parser
/// rejected. Its ``code`` is of ``AuthCore/AuthError``'s one code type, and it is sent in
/// the same shape.
///
/// ```swift
/// throw HTTPRequestError.unsupportedMediaType   // 415 {"error":"unsupported_media_type",…}
/// ```
public struct HTTPRequestError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case notFound
        case methodNotAllowed
        case requestTooLarge
        case unsupportedMediaType
        case malformed
        case headersTooLarge
        case bodyTimedOut
    }

    private let kind: Kind
    /// The text sent as `error_description`.
    public let description: String
    /// The methods the path serves (`Allow`), for ``methodNotAllowed(allow:)``.
    public let allow: [String]

    private init(_ kind: Kind, _ description: String, allow: [String] = []) {
        self.kind = kind
        self.description = description
        self.allow = allow
    }

    /// The `error` code.
    public var code: AuthError.Code {
        switch kind {
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .requestTooLarge: .requestTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .malformed: .invalidRequest
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .bodyTimedOut: .requestTimeout
        }
    }

    /// The HTTP status.
    public var status: HTTPResponse.Status {
        switch kind {
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .requestTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .malformed: .badRequest
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .bodyTimedOut: .requestTimeout
        }
    }

    /// No route has this path.
    public static let notFound = HTTPRequestError(.notFound, "No resource exists at this path.")

    /// The path exists but not with this method.
    public static func methodNotAllowed(allow: [String]) -> HTTPRequestError {
        HTTPRequestError(.methodNotAllowed, "This method is not allowed here. Allowed: \(allow.joined(separator: ", ")).", allow: allow)
    }

    /// The request body is larger than the service accepts.
    public static func requestTooLarge(limit: Int? = nil) -> HTTPRequestError {
        HTTPRequestError(
            .requestTooLarge, limit.map { "The request body must not exceed \($0) bytes." } ?? "The request body is too large.")
    }

    /// The request body is not `application/json`.
    public static let unsupportedMediaType = HTTPRequestError(
        .unsupportedMediaType, "The request body must be JSON sent with Content-Type: application/json."
    )

    /// The request body of an OAuth endpoint is not `application/x-www-form-urlencoded`.
    public static let notAForm = HTTPRequestError(
        .unsupportedMediaType, "The request body must be a form sent with Content-Type: application/x-www-form-urlencoded."
    )

    /// The HTTP parser rejected the request (a malformed request line, method or header).
    public static let malformed = HTTPRequestError(.malformed, "The HTTP request is malformed.")

    /// The body did not arrive whole within `seconds` of the request's start (a total
    /// deadline, however steadily it trickled): answered 408, and the connection closed.
    public static func bodyTimedOut(seconds: Int) -> HTTPRequestError {
        HTTPRequestError(.bodyTimedOut, "The request body must arrive whole within \(seconds) seconds.")
    }

    /// Whether the connection is closed after this answer (the rest of the body is not read).
    var closesConnection: Bool { kind == .bodyTimedOut }

    /// The request line or headers exceed what the server reads.
    public static let headersTooLarge = HTTPRequestError(
        .headersTooLarge, "The request line or headers are too large."
    )
}
