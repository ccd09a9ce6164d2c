import Foundation
import JOSE

/// The shape of a compact JWT: three base64url segments, the first two JSON objects.
package enum JWTShape {
    /// The shape as a regular expression, for JSON Schema.
    package static let pattern = #"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"#

    package static func isJWT(_ text: String) -> Bool {
        guard let jws = CompactJWS(text), !jws.signature.isEmpty else { return false }
        return [jws.header, jws.payload].allSatisfy { if case .object = try? JSONValue(parsing: $0) { true } else { false } }
    }

    /// The payload of a compact JWT, when `text` is one.
    package static func payload(of text: String) -> JSONValue? {
        guard let jws = CompactJWS(text), case .object(let claims) = try? JSONValue(parsing: jws.payload) else { return nil }
        return .object(claims)
    }

    /// The `alg` of a compact JWT's header, when `text` is one and says it.
    package static func algorithm(of text: String) -> String? {
        guard let jws = CompactJWS(text), case .object(let header) = try? JSONValue(parsing: jws.header),
            case .string(let algorithm)? = header["alg"]
        else { return nil }
        return algorithm
    }
}
