import Foundation

/// The shape of a compact JWT: three base64url segments, the first two JSON objects.
package enum JWTShape {
    /// The shape as a regular expression, for JSON Schema.
    package static let pattern = #"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"#

    package static func isJWT(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty else { return false }
        for part in parts.prefix(2) {
            guard let data = Base64URL.decode(part), case .object = try? JSONValue(parsing: data) else { return false }
        }
        return Base64URL.decode(parts[2]) != nil
    }

    /// The payload of a compact JWT, when `text` is one.
    package static func payload(of text: String) -> JSONValue? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]), case .object(let claims) = try? JSONValue(parsing: data) else {
            return nil
        }
        return .object(claims)
    }
}
