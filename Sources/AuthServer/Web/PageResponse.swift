import Foundation
import HTTPTypes
import Hummingbird
import JOSE

/// An HTML page's answer with the headers every page of authd carries: a Content Security
/// Policy allowing nothing but the page's own style, by a nonce fresh for each answer (CSP
/// Level 3), forms posting to authd only, and no framing (`frame-ancestors 'none'`, and
/// `X-Frame-Options` for older browsers); no `Referer` sent to another site (`same-origin`:
/// with `no-referrer` a browser sends `Origin: null` with the page's own forms, which
/// ``BrowserSessions`` then refuses; a link's token is out of the address bar before a
/// page shows); no caching, no MIME sniffing, and a browsing context of its own
/// (`Cross-Origin-Opener-Policy`).
///
/// ```swift
/// let nonce = PageResponse.nonce()
/// return PageResponse.make(status: .ok, html: pages.render("message", …, nonce: nonce), nonce: nonce)
/// ```
public enum PageResponse {
    /// A fresh nonce for one answer's `Content-Security-Policy` and its `<style>` (128 bits).
    public static func nonce() -> String {
        SecureRandom.base64URLText(length: 22)
    }

    /// The `Content-Security-Policy` of a page whose style and scripts carry `nonce`, whose
    /// forms post to authd and to `formTargets` (CSP sources: an origin, or `scheme:`). A
    /// page of an authorization request names its redirect URI's origin there: browsers hold
    /// the redirects that follow a form's POST to `form-action` as well.
    public static func contentSecurityPolicy(nonce: String, formTargets: [String] = []) -> String {
        "default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'; connect-src 'self'; img-src 'self' data:; "
            + "form-action \((["'self'"] + formTargets).joined(separator: " ")); frame-ancestors 'none'; base-uri 'none'"
    }

    /// A page's answer.
    public static func make(
        status: HTTPResponse.Status, html: String, nonce: String, headers extra: HTTPFields = [:], formTargets: [String] = []
    ) -> Response {
        var headers = securityHeaders(nonce: nonce, formTargets: formTargets)
        headers[.contentType] = "text/html; charset=utf-8"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A redirect after a form or a link (303: the browser follows it with a GET).
    public static func seeOther(_ location: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = securityHeaders(nonce: nonce(), formTargets: [])
        headers[.location] = location
        headers.append(contentsOf: extra)
        return Response(status: .seeOther, headers: headers)
    }

    private static func securityHeaders(nonce: String, formTargets: [String]) -> HTTPFields {
        [
            .contentSecurityPolicy: contentSecurityPolicy(nonce: nonce, formTargets: formTargets),
            .xFrameOptions: "DENY",
            .referrerPolicy: "same-origin",
            .xContentTypeOptions: "nosniff",
            .crossOriginOpenerPolicy: "same-origin",
            .cacheControl: "no-store",
        ]
    }
}

extension HTTPField.Name {
    static let xFrameOptions = named("X-Frame-Options")
    static let referrerPolicy = named("Referrer-Policy")
    static let crossOriginOpenerPolicy = named("Cross-Origin-Opener-Policy")
    /// Where a request was started, as the browser tells (Fetch Metadata).
    static let secFetchSite = named("Sec-Fetch-Site")

    private static func named(_ name: String) -> HTTPField.Name {
        guard let field = HTTPField.Name(name) else { preconditionFailure("\(name) is a valid field name") }
        return field
    }
}
