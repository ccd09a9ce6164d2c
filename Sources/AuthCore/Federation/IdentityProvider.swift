import Foundation

/// An upstream identity provider users may sign in with (`authd provider add`): any OpenID
/// provider, Apple or Google. Its ID tokens are verified against its published keys
/// (``ProviderKeyCache``, ``IDTokenVerifier``); an account's link to it is an ``Identity``.
///
/// ```swift
/// let provider = try await storage.providers.provider(named: "google")
/// provider?.clientIDs   // ["1234-web.apps.googleusercontent.com", "1234-ios.apps.googleusercontent.com"]
/// ```
public struct IdentityProvider: Sendable, Equatable {
    /// What the provider is: its defaults (issuer, scopes) and quirks follow from it.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// Any OpenID provider, found through its discovery document.
        case oidc
        /// Sign in with Apple: the client secret is a JWT authd signs with the team's key,
        /// answers come by `form_post`, and the name only with the first sign-in.
        case apple
        /// Google: its ID tokens name the issuer with or without `https://`.
        case google

        /// The issuer a provider of this kind has unless one is given.
        public var defaultIssuer: String? {
            switch self {
            case .oidc: nil
            case .apple: "https://appleid.apple.com"
            case .google: "https://accounts.google.com"
            }
        }

        /// The scopes asked for in the browser unless others are given.
        public var defaultScopes: [String] {
            switch self {
            case .apple: ["openid", "email", "name"]
            case .oidc, .google: ["openid", "email", "profile"]
            }
        }
    }

    /// Apple's client secret: a JWT authd signs with this key (ES256) of the team.
    public struct AppleSigning: Sendable, Equatable {
        /// The Apple Developer team id (the JWT's `iss`).
        public var teamID: String
        /// The key's id (the JWT header's `kid`).
        public var keyID: String
        /// The key's PKCS#8 bytes, sealed under the KEK.
        public var sealedPrivateKey: Data

        /// Creates the value.
        public init(teamID: String, keyID: String, sealedPrivateKey: Data) {
            self.teamID = teamID
            self.keyID = keyID
            self.sealedPrivateKey = sealedPrivateKey
        }
    }

    /// Its name in authd: the `provider` of `POST /login/id-token`, 1 to 64 letters, digits,
    /// `.`, `_` or `-`.
    public var name: String
    /// Its kind.
    public var kind: Kind
    /// Its issuer identifier, as its ID tokens' `iss` says it.
    public var issuer: String
    /// The audiences its ID tokens may name: the first is the client id authd signs in with
    /// in the browser; the others are apps that sign in natively (an iOS bundle id, a
    /// Google iOS client id).
    public var clientIDs: [String]
    /// The client secret authd authenticates with at its token endpoint, sealed under the
    /// KEK (``ProviderSecrets``); nil for a public client or Apple.
    public var sealedClientSecret: Data?
    /// Apple's signing key for its client secret.
    public var apple: AppleSigning?
    /// The scopes asked for in the browser.
    public var scopes: [String]
    /// Whether the first sign-in of an unknown identity makes an account even when sign-up
    /// is closed.
    public var createsAccounts: Bool
    /// Its endpoints, from its discovery document.
    public var metadata: ProviderMetadata
    /// When it was added.
    public var createdAt: Date

    /// Creates the value.
    public init(
        name: String, kind: Kind, issuer: String, clientIDs: [String], sealedClientSecret: Data? = nil, apple: AppleSigning? = nil,
        scopes: [String], createsAccounts: Bool, metadata: ProviderMetadata, createdAt: Date
    ) {
        self.name = name
        self.kind = kind
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.sealedClientSecret = sealedClientSecret
        self.apple = apple
        self.scopes = scopes
        self.createsAccounts = createsAccounts
        self.metadata = metadata
        self.createdAt = createdAt
    }

    /// What the sign-in page's button calls it: Apple and Google by their names, any
    /// other provider by its name in authd.
    public var displayName: String {
        switch kind {
        case .apple: "Apple"
        case .google: "Google"
        case .oidc: name
        }
    }

    /// The `iss` values its ID tokens may carry: the issuer, and for Google also the same
    /// without `https://`, which Google's tokens may name.
    public var acceptedIssuers: Set<String> {
        guard kind == .google, issuer.hasPrefix("https://") else { return [issuer] }
        return [issuer, String(issuer.dropFirst("https://".count))]
    }

    /// Whether `name` is a valid provider name.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }
    }
}
