import AuthCore
import Hummingbird

/// `GET /.well-known/oauth-authorization-server` and `GET /.well-known/openid-configuration`:
/// the same ``ServerMetadata``. Its URLs start with `serve --public-url` when one is set
/// (behind a proxy, the address clients use), else with the scheme and `Host` of the request
/// (`X-Forwarded-Proto` and `X-Forwarded-Host` believed from trusted proxies only).
///
/// ```swift
/// router.addRoutes(MetadataController(issuer: "https://auth.example.com", publicURL: "https://auth.example.com",
///                                     https: false, trustedProxies: .none, maxAge: 20).routes)
/// ```
public struct MetadataController: Sendable {
    /// The `iss` of authd's tokens.
    public let issuer: String
    /// The base URL clients reach authd at, without a trailing slash; nil: from each request.
    public let publicURL: String?
    /// Whether authd itself serves HTTPS (the scheme of a URL made from a request).
    public let https: Bool
    /// The proxies whose forwarded scheme and host are believed.
    public let trustedProxies: TrustedProxies
    /// Seconds a cache may keep the document (when it does not depend on the request).
    public let maxAge: Int

    /// Creates the controller.
    public init(issuer: String, publicURL: String?, https: Bool, trustedProxies: TrustedProxies, maxAge: Int) {
        self.issuer = issuer
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.https = https
        self.trustedProxies = trustedProxies
        self.maxAge = maxAge
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/.well-known/oauth-authorization-server", use: metadata)
        routes.get("/.well-known/openid-configuration", use: discovery)
        return routes
    }

    @Sendable func metadata(_ request: Request, context: AuthRequestContext) async throws -> Response {
        if let publicURL {
            return JSONResponse.make(
                status: .ok, body: ServerMetadata(issuer: issuer, base: publicURL), headers: [.cacheControl: "public, max-age=\(maxAge)"]
            )
        }
        return JSONResponse.make(status: .ok, body: ServerMetadata(issuer: issuer, base: base(of: request, context: context)))
    }

    /// `scheme://host` as the request reached authd.
    /// OpenID Connect Discovery 1.0 §4: the provider's configuration.
    @Sendable func discovery(_ request: Request, context: AuthRequestContext) async throws -> Response {
        if let publicURL {
            return JSONResponse.make(
                status: .ok, body: DiscoveryDocument(issuer: issuer, base: publicURL), headers: [.cacheControl: "public, max-age=\(maxAge)"]
            )
        }
        return JSONResponse.make(status: .ok, body: DiscoveryDocument(issuer: issuer, base: base(of: request, context: context)))
    }

    func base(of request: Request, context: AuthRequestContext) -> String {
        Self.base(
            authority: request.head.authority, forwardedProto: request.headers[.xForwardedProto],
            forwardedHost: request.headers[.xForwardedHost],
            fromTrustedProxy: context.remoteAddress?.ipAddress.map(trustedProxies.contains) ?? false, https: https
        )
    }

    /// `scheme://host` from a request's authority (`Host`), and from a trusted proxy's
    /// forwarded scheme and host; `localhost` when the host is not a host name.
    ///
    /// ```swift
    /// MetadataController.base(authority: "auth.local:8443", forwardedProto: nil, forwardedHost: nil, fromTrustedProxy: false, https: false)
    /// // "http://auth.local:8443"
    /// ```
    public static func base(authority: String?, forwardedProto: String?, forwardedHost: String?, fromTrustedProxy: Bool, https: Bool)
        -> String
    {
        var scheme = https ? "https" : "http"
        var host = authority
        if fromTrustedProxy {
            if let forwarded = forwardedProto?.lowercased(), ["http", "https"].contains(forwarded) { scheme = forwarded }
            if let forwardedHost { host = forwardedHost }
        }
        guard let host, isHost(host) else { return "\(scheme)://localhost" }
        return "\(scheme)://\(host)"
    }

    /// A host name or address with an optional port, nothing else (no path, user or space).
    static func isHost(_ text: String) -> Bool {
        (1...261).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || Array(".-:[]_".utf8).contains(byte)
            }
    }
}
