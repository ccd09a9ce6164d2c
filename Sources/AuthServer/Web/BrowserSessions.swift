import AuthCore
import Foundation
import HTTPTypes
import Hummingbird

/// The browser-session and anti-forgery layer of authd's pages: the ``AuthCore/BrowserSession``
/// in a cookie (sealed; `HttpOnly`, `SameSite=Lax`, and, over HTTPS or on localhost, `Secure`
/// with the `__Host-` prefix, so no other host or path can set it), and the checks a form's POST passes before
/// it acts: it comes from authd's own origin (`Origin`, RFC 6454, and `Sec-Fetch-Site`, when
/// the browser sends them) and carries the session's anti-forgery token (OWASP's
/// synchronizer token pattern).
///
/// ```swift
/// var session = sessions.session(of: request) ?? BrowserSession.start(now: clock.now)
/// guard sessions.acceptsForm(request, csrfToken: form["csrf"], session: session) else { … 403 page … }
/// return PageResponse.seeOther("/account/password-reset", headers: try sessions.cookie(for: session))
/// ```
public struct BrowserSessions: Sendable {
    /// Seals and opens the cookie.
    public let sealer: BrowserSessionSealer
    /// Whether pages are served over HTTPS (TLS here, or a public URL starting `https:`).
    public let secure: Bool
    /// The origin forms must come from (`scheme://host[:port]` of the public URL); nil: the
    /// request's own scheme and `Host`.
    public let origin: String?
    /// The time of sessions.
    public let clock: any WallClock
    /// Whether authd itself serves HTTPS (the scheme of its own origin without a public URL).
    public let tls: Bool

    /// The layer; `publicURL` gives the expected origin and, when `https:`, secure cookies.
    public init(sealer: BrowserSessionSealer, publicURL: String?, tls: Bool, clock: any WallClock) {
        self.sealer = sealer
        let components = publicURL.flatMap { URLComponents(string: $0) }
        // Browsers keep a Secure cookie from http://localhost and the loopback addresses too
        // (they are secure contexts): only a public URL of plain HTTP elsewhere goes without.
        let host = components?.host?.lowercased() ?? "localhost"
        let local = host == "localhost" || host.hasSuffix(".localhost") || RedirectURI.isLoopbackIP(host)
        secure = tls || components?.scheme?.lowercased() == "https" || local
        origin = components.flatMap { components in
            guard let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased() else { return nil }
            return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        }
        self.clock = clock
        self.tls = tls
    }

    /// The cookie's name: with the `__Host-` prefix over HTTPS (RFC 6265bis §4.1.3.2).
    public var cookieName: String { secure ? "__Host-authd_browser" : "authd_browser" }

    /// The browser's session, nil when it has none, or one that is not authd's or has ended.
    public func session(of request: Request) -> BrowserSession? {
        request.cookies[cookieName].flatMap { sealer.open($0.value, now: clock.now) }
    }

    /// The `Set-Cookie` field that keeps `session` in the browser until it ends.
    public func cookie(for session: BrowserSession) throws -> HTTPFields {
        let maxAge = max(0, Int(session.expiresAt.timeIntervalSince(clock.now)))
        let cookie = Cookie(
            name: cookieName, value: try sealer.seal(session), maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
        return [.setCookie: cookie.description]
    }

    /// An emailed link's `?token=` moved into the browser's session (for `purpose`; nothing
    /// completed or waiting any more) and the browser sent on to `path` without it, so that
    /// the token is in no address bar, history or `Referer`; nil when the request has none.
    public func movingLinkToken(of request: Request, purpose: AccountTokenPurpose, to path: String) throws -> Response? {
        guard let token = request.uri.queryParameters["token"].map(String.init), !token.isEmpty else { return nil }
        var session = session(of: request) ?? BrowserSession.start(now: clock.now)
        session.pending = .init(purpose: purpose, token: token)
        session.completed = nil
        session.secondFactorToken = nil
        return PageResponse.seeOther(path, headers: try cookie(for: session))
    }

    /// The name of the cookie of a sign-in at a provider (``AuthCore/ProviderSignInAttempt``).
    public var attemptCookieName: String { secure ? "__Host-authd_provider" : "authd_provider" }

    /// The browser's sign-in at a provider, nil when it has none, or one that is not
    /// authd's or has ended.
    public func attempt(of request: Request) -> ProviderSignInAttempt? {
        request.cookies[attemptCookieName].flatMap { sealer.openAttempt($0.value, now: clock.now) }
    }

    /// The `Set-Cookie` field that keeps `attempt` until it ends: `SameSite=None` (Sign in with
    /// Apple answers with a cross-site POST, which a `Lax` cookie would not come with), so
    /// `Secure` too; over plain HTTP elsewhere than this machine, `Lax` (a browser drops a
    /// `SameSite=None` cookie that is not `Secure`).
    public func cookie(for attempt: ProviderSignInAttempt) throws -> HTTPFields {
        let maxAge = max(0, Int(attempt.expiresAt.timeIntervalSince(clock.now)))
        let cookie = Cookie(
            name: attemptCookieName, value: try sealer.seal(attempt), maxAge: maxAge, path: "/", secure: secure, httpOnly: true,
            sameSite: secure ? .none : .lax)
        return [.setCookie: cookie.description]
    }

    /// The `Set-Cookie` field that ends the browser's sign-in at a provider.
    public var endingAttempt: HTTPFields {
        let cookie = Cookie(
            name: attemptCookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: secure ? .none : .lax)
        return [.setCookie: cookie.description]
    }

    /// Whether a form's POST may act: sent from authd's own pages (its `Origin`, when sent, is
    /// authd's; its `Sec-Fetch-Site`, when sent, is `same-origin`) with `session`'s
    /// anti-forgery token.
    public func acceptsForm(_ request: Request, csrfToken: String?, session: BrowserSession?) -> Bool {
        if let site = request.headers[.secFetchSite], site != "same-origin" { return false }
        if let sent = request.headers[.origin] {
            guard let expected = origin ?? ownOrigin(of: request), sent.lowercased() == expected else { return false }
        }
        return session?.acceptsForm(csrfToken: csrfToken) ?? false
    }

    /// `scheme://host` of the request itself, from its `Host`.
    private func ownOrigin(of request: Request) -> String? {
        guard let host = request.head.authority else { return nil }
        return "\(tls ? "https" : "http")://\(host.lowercased())"
    }
}
