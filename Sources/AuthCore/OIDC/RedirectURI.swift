import Foundation

/// A redirect URI an OpenID Connect client registered: where `/authorize` may send the
/// browser back with a code. Matched as a whole string (RFC 9700 §2.1; OAuth 2.0 §3.1.2.2),
/// except that a native app's loopback URI takes any port (RFC 8252 §7.3), since the app
/// listens on whichever port is free when it signs in.
///
/// Registered URIs are one of (RFC 8252 §7, RFC 6749 §3.1.2):
/// - `https://host/path`, for a web app or a claimed https URI of a native app;
/// - `http://127.0.0.1:PORT/path` or `http://[::1]:PORT/path`, a native app's loopback
///   listener (any port matches), or `http://localhost:PORT/path` for development, matched exactly
///   (RFC 8252 §8.3 does not recommend it: a name can resolve elsewhere);
/// - `com.example.app:/callback`, a private-use scheme in reverse-domain form (RFC 8252 §7.1).
///
/// No fragment, no user name or password, at most 2,048 characters.
///
/// ```swift
/// let uri = try RedirectURI(registering: "http://127.0.0.1/callback")
/// uri.accepts("http://127.0.0.1:51004/callback")   // true
/// uri.accepts("http://127.0.0.1:51004/callback/x") // false
/// ```
public struct RedirectURI: Sendable, Hashable, CustomStringConvertible {
    /// The URI as registered.
    public let text: String

    /// Checks `text` as a URI to register.
    /// - Throws: `invalid_request` naming what is wrong.
    public init(registering text: String) throws {
        guard (1...2048).contains(text.utf8.count) else {
            throw AuthError.invalidRequest("a redirect URI must be 1 to 2048 characters")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw AuthError.invalidRequest("a redirect URI must be an absolute URI, not '\(text)'")
        }
        guard components.fragment == nil else {
            throw AuthError.invalidRequest("a redirect URI may not have a fragment (RFC 6749 §3.1.2): '\(text)'")
        }
        guard components.user == nil, components.password == nil else {
            throw AuthError.invalidRequest("a redirect URI may not hold a user name or password: '\(text)'")
        }
        switch scheme {
        case "https":
            guard !(components.host ?? "").isEmpty else { throw AuthError.invalidRequest("an https redirect URI needs a host: '\(text)'") }
        case "http":
            guard let host = components.host?.lowercased(), Self.loopbackAddresses.contains(host) || host == "localhost" else {
                throw AuthError.invalidRequest(
                    "a redirect URI over plain http must be a loopback one (127.0.0.1, [::1] or localhost; RFC 8252 §7.3): '\(text)'")
            }
        default:
            // RFC 8252 §7.1: a reverse domain name the app's owner controls; this also keeps out
            // `javascript:`, `data:` and `file:`.
            guard scheme.contains("."), components.host == nil || components.host == "" else {
                throw AuthError.invalidRequest(
                    "a private-use redirect URI needs a reverse-domain scheme such as com.example.app:/callback (RFC 8252 §7.1): '\(text)'")
            }
        }
        self.text = text
    }

    /// A URI as stored, checked when it was registered.
    public init(stored text: String) {
        self.text = text
    }

    /// Whether `/authorize` may redirect to `requested`: the same string, or for a loopback IP
    /// address the same URI on any port.
    public func accepts(_ requested: String) -> Bool {
        if requested == text { return true }
        guard let registered = URLComponents(string: text), registered.scheme?.lowercased() == "http",
            let host = registered.host?.lowercased(), Self.loopbackAddresses.contains(host),
            let asked = URLComponents(string: requested), asked.scheme?.lowercased() == "http", asked.host?.lowercased() == host,
            asked.user == nil, asked.password == nil, asked.fragment == nil
        else { return false }
        return asked.percentEncodedPath == registered.percentEncodedPath && asked.percentEncodedQuery == registered.percentEncodedQuery
    }

    public var description: String { text }

    /// The loopback IP literals (RFC 8252 §7.3), as `URLComponents` gives their host.
    private static let loopbackAddresses: Set<String> = ["127.0.0.1", "[::1]"]

    /// Whether `host` (as `URLComponents` gives it) is a loopback IP literal.
    public static func isLoopbackIP(_ host: String) -> Bool { loopbackAddresses.contains(host.lowercased()) }
}
