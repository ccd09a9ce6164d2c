import Foundation
import JOSE

/// An authorization code `/authorize` gave a client (RFC 6749 §4.1.2): stored only as the
/// SHA-256 of the code, good once for 60 seconds, bound to the client, the redirect URI and
/// the PKCE challenge of the request, and carrying what the ID token will say of the sign-in.
public struct AuthorizationCode: Sendable, Equatable {
    /// Hex SHA-256 of the code (``OpaqueToken``).
    public var codeHash: String
    public var clientID: String
    public var userID: UUID
    /// The redirect URI of the request, which the token request must repeat.
    public var redirectURI: String
    public var scopes: [String]
    public var nonce: String?
    /// The S256 challenge of the request, nil when it had none (a confidential client).
    public var codeChallenge: String?
    /// When the user signed in (the ID token's `auth_time`).
    public var authTime: Date
    /// How (RFC 8176: `pwd`, `otp`, `hwk`, `mfa`).
    public var methods: [String]
    public var expiresAt: Date
    /// The browser sign-in (its session) the code was given in: the session its redemption
    /// starts ends when the browser signs out.
    public var browserSession: UUID?

    /// How long a code is good: OAuth 2.0 §4.1.2 recommends at most 10 minutes; a client
    /// redeems it at once.
    public static let lifetime: TimeInterval = 60

    public init(
        codeHash: String, clientID: String, userID: UUID, redirectURI: String, scopes: [String], nonce: String?, codeChallenge: String?,
        authTime: Date, methods: [String], expiresAt: Date, browserSession: UUID? = nil
    ) {
        self.browserSession = browserSession
        self.codeHash = codeHash
        self.clientID = clientID
        self.userID = userID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.authTime = authTime
        self.methods = methods
        self.expiresAt = expiresAt
    }

    /// Whether `verifier` answers `challenge` (RFC 7636 §4.6), in constant time (``JOSE/PKCE``).
    public static func verifier(_ verifier: String, answers challenge: String) -> Bool {
        PKCE.verifier(verifier, answers: challenge)
    }
}

/// What redeeming a code found.
public enum AuthorizationCodeRedemption: Sendable, Equatable {
    /// The code, now used.
    case redeemed(AuthorizationCode)
    /// A code used before: the session its first use started, if any, to end (RFC 6749 §4.1.2).
    case replayed(sessionID: UUID?, userID: UUID)
    /// No such code.
    case unknown
}
