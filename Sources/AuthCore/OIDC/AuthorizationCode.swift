import Crypto
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

    /// Whether `verifier` answers `challenge` (RFC 7636 §4.6: BASE64URL(SHA256(verifier))),
    /// compared in constant time; a verifier must be 43 to 128 unreserved characters (§4.1).
    public static func verifier(_ verifier: String, answers challenge: String) -> Bool {
        guard (43...128).contains(verifier.utf8.count),
            verifier.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
            })
        else { return false }
        return ConstantTime.equal(Array(Self.challenge(of: verifier).utf8), Array(challenge.utf8))
    }

    /// The S256 challenge of `verifier` (RFC 7636 §4.2): BASE64URL(SHA256(verifier)).
    public static func challenge(of verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
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
