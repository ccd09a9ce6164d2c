import Foundation
import WebForms

/// How authd calls a provider (its discovery document, its keys, its token and revocation
/// endpoints): over HTTP in authd (AsyncHTTPClient, in AuthServer: no redirects followed,
/// bodies capped, every call under a deadline).
///
/// ```swift
/// let answer = try await transport.send(ProviderRequest(url: metadata.jwksURI))
/// answer.status   // 200
/// ```
public protocol ProviderTransport: Sendable {
    /// Sends `request`, answering the provider's response; throws when none came.
    func send(_ request: ProviderRequest) async throws -> ProviderResponse
}

/// A request to a provider.
public struct ProviderRequest: Sendable {
    /// `GET` or `POST`.
    public var method: String
    /// Where.
    public var url: URL
    /// Its headers.
    public var headers: [(name: String, value: String)]
    /// The body (a form), for `POST`.
    public var body: Data?

    /// A `GET` of `url`.
    public init(get url: URL) {
        method = "GET"
        self.url = url
        headers = [("Accept", "application/json")]
        body = nil
    }

    /// A form `POST` to `url` (RFC 6749's token and RFC 7009's revocation requests).
    public init(post url: URL, form: [(name: String, value: String)], headers: [(name: String, value: String)] = []) {
        method = "POST"
        self.url = url
        self.headers = [("Accept", "application/json"), ("Content-Type", "application/x-www-form-urlencoded")] + headers
        body = Data(FormEncoding.encode(form).utf8)
    }
}

/// A provider's answer.
public struct ProviderResponse: Sendable {
    /// The status.
    public var status: Int
    /// The headers.
    public var headers: [(name: String, value: String)]
    /// The body (capped by the transport).
    public var body: Data

    /// Creates the value.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitively).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `Cache-Control`'s `max-age`, in seconds; nil without one, or with `no-store`/`no-cache`
    /// (which ask for no reuse: 0).
    public var maxAge: Int? {
        guard let value = header("Cache-Control")?.lowercased() else { return nil }
        let directives = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-store") || directives.contains("no-cache") { return 0 }
        for directive in directives where directive.hasPrefix("max-age=") {
            return Int(directive.dropFirst("max-age=".count)).map { max(0, $0) }
        }
        return nil
    }
}
