import Foundation

/// One `Set-Cookie` header read as RFC 6265 §5.2 reads it: the name and value before the
/// first `;`, then attributes, names in any case; an unknown attribute is ignored.
///
/// ```swift
/// let cookie = SetCookie(parsing: "__Host-id=abc; Path=/; Max-Age=60; HttpOnly; Secure; SameSite=Lax")
/// cookie?.maxAge   // 60
/// ```
public struct SetCookie: Sendable, Equatable {
    public let name: String
    public let value: String
    public let httpOnly: Bool
    public let secure: Bool
    public let sameSite: String?
    public let path: String?
    public let domain: String?
    /// `Max-Age` in seconds (§5.2.2: a value that is not an integer is ignored).
    public let maxAge: Int?
    /// `Expires`, when it reads as an HTTP date.
    public let expires: Date?

    /// Reads a header's value; nil when it has no `=` in its first part (§5.2 step 5) or an empty name.
    public init?(parsing header: String) {
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        self.name = name
        value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        var httpOnly = false
        var secure = false
        var sameSite: String?
        var path: String?
        var domain: String?
        var maxAge: Int?
        var expires: Date?
        for part in parts.dropFirst() {
            let attribute = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = attribute[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = attribute.count > 1 ? attribute[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "httponly": httpOnly = true
            case "secure": secure = true
            case "samesite": sameSite = value
            case "path": path = value
            case "domain": domain = value
            case "max-age": if let seconds = Int(value) { maxAge = seconds }
            case "expires": expires = Self.httpDate(value)
            default: break
            }
        }
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.expires = expires
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 §5.6.7 sends.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }

    /// The `Set-Cookie` headers of `headers` that read as cookies, in order.
    public static func all(in headers: [(name: String, value: String)]) -> [SetCookie] {
        headers.filter { isSameHeaderName($0.name, "Set-Cookie") }.compactMap { SetCookie(parsing: $0.value) }
    }
}
