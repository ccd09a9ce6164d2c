import ContractKit
import Foundation

/// The cookies of one side of one contract file, as a browser keeps them (RFC 6265 §5.3,
/// with RFC 6265bis's prefixes and secure contexts): stored from each answer's `Set-Cookie`,
/// sent as `Cookie` on the file's later requests unless the contract writes that header
/// itself. A `Secure` cookie is stored and sent only in a secure context: `https`, or `http`
/// to a loopback host (`localhost`, `127.0.0.0/8`, `::1`), as browsers treat them; the
/// in-process stub counts as `http://localhost`.
///
/// ```swift
/// var jar = CookieJar()
/// jar.store(from: response, for: URL(string: "http://127.0.0.1:8080/authorize")!)
/// jar.header(for: URL(string: "http://127.0.0.1:8080/authorize/sign-in")!)   // "__Host-authd_browser=…"
/// ```
public struct CookieJar: Sendable {
    struct Cookie: Sendable {
        let name: String
        let value: String
        let domain: String
        let hostOnly: Bool
        let path: String
        let secure: Bool
        let expires: Date?
        let created: Int
    }

    private var cookies: [Cookie] = []
    private var counter = 0
    /// The jar's time, for `Max-Age` and `Expires`.
    private let now: @Sendable () -> Date

    /// An empty jar, on `now`'s clock.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// The names of the cookies it holds now, in the order they were set.
    public var names: [String] {
        let time = now()
        return cookies.filter { $0.expires.map { $0 > time } ?? true }.sorted { $0.created < $1.created }.map(\.name)
    }

    /// Whether a request to `url` is made from a secure context.
    static func isSecure(_ url: URL) -> Bool {
        if url.scheme?.lowercased() == "https" { return true }
        let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
    }

    /// Stores the cookies `response` sets, as answered to a request for `url`.
    public mutating func store(from response: ContractResponse, for url: URL) {
        for header in response.headers where isSameHeaderName(header.name, "Set-Cookie") {
            if let cookie = SetCookie(parsing: header.value) { store(cookie, for: url) }
        }
    }

    private mutating func store(_ set: SetCookie, for url: URL) {
        let host = (url.host ?? "localhost").lowercased()
        let secureContext = Self.isSecure(url)
        // §5.7 (6265bis): a Secure cookie comes only from a secure context; the prefixes' rules.
        if set.secure && !secureContext { return }
        if set.name.hasPrefix("__Secure-") && !set.secure { return }
        if set.name.hasPrefix("__Host-") && (!set.secure || set.domain != nil || set.path != "/") { return }
        var domain = host
        var hostOnly = true
        if let written = set.domain?.lowercased(), !written.isEmpty {
            let trimmed = written.hasPrefix(".") ? String(written.dropFirst()) : written
            guard Self.domainMatches(host, trimmed) else { return }
            domain = trimmed
            hostOnly = false
        }
        let path = set.path.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? Self.defaultPath(url.path)
        var expires: Date?
        if let maxAge = set.maxAge {
            expires = now().addingTimeInterval(TimeInterval(maxAge))
        } else if let date = set.expires {
            expires = date
        }
        let existing = cookies.firstIndex { $0.name == set.name && $0.domain == domain && $0.path == path }
        let created = existing.map { cookies[$0].created } ?? counter
        if let existing { cookies.remove(at: existing) }
        counter += 1
        if let expires, expires <= now() { return }
        cookies.append(
            Cookie(
                name: set.name, value: set.value, domain: domain, hostOnly: hostOnly, path: path, secure: set.secure, expires: expires,
                created: created))
    }

    /// The `Cookie` header for a request to `url`, nil when no cookie goes there: longer paths
    /// first, then the older cookie (§5.4).
    public func header(for url: URL) -> String? {
        let host = (url.host ?? "localhost").lowercased()
        let path = url.path.isEmpty ? "/" : url.path
        let secure = Self.isSecure(url)
        let time = now()
        let sent = cookies.filter { cookie in
            (cookie.hostOnly ? cookie.domain == host : Self.domainMatches(host, cookie.domain))
                && Self.pathMatches(path, cookie.path) && (!cookie.secure || secure) && (cookie.expires.map { $0 > time } ?? true)
        }.sorted { ($0.path.count, -$0.created) > ($1.path.count, -$1.created) }
        guard !sent.isEmpty else { return nil }
        return sent.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// §5.1.3.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && Double(host.split(separator: ".").last ?? "") == nil)
    }

    /// §5.1.4.
    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        path == cookiePath || (path.hasPrefix(cookiePath) && (cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")))
    }

    /// §5.1.4: the request path up to its last `/`, or `/`.
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }
}
