import Foundation

/// The link a token's message carries (`"link"` in the delivered body): authd's own page for
/// the token, under the public URL authd is reached at (`serve --public-url`), with the
/// token in its query. The page moves the token out of the address bar before showing
/// anything (``BrowserSession``). A mailer that builds its own links ignores it.
///
/// ```swift
/// let links = DeliveryLinks(base: "https://auth.example.com", paths: [.passwordReset: "/account/password-reset"])
/// links.link(for: .passwordReset, token: "q3N…")   // "https://auth.example.com/account/password-reset?token=q3N…"
/// ```
public struct DeliveryLinks: Sendable, Equatable {
    /// The public URL, without a trailing slash.
    public let base: String
    /// The page of each purpose that has one.
    public let paths: [AccountTokenPurpose: String]

    /// Links under `base` to `paths`.
    public init(base: String, paths: [AccountTokenPurpose: String]) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.paths = paths
    }

    /// The link for a token of `purpose`, nil when that purpose has no page.
    public func link(for purpose: AccountTokenPurpose, token: String) -> String? {
        guard let path = paths[purpose] else { return nil }
        // A token is base64url; encoded anyway, so that no value can end the query.
        let encoded = token.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? token
        return "\(base)\(path)?token=\(encoded)"
    }

    private static let queryValue = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
