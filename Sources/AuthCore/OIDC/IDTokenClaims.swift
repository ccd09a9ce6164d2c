import Foundation
import JOSE

/// The claims of an ID token (OpenID Connect Core §2, §3.1.3.6): who signed in (`sub`), for
/// which client (`aud`, `azp`), when and how (`auth_time`, `amr` of RFC 8176, `acr`), the
/// request's `nonce`, the session (`sid`), and `at_hash`, which binds the access token issued
/// with it.
///
/// ```swift
/// let claims = IDTokenClaims(grant: code, issuer: issuer, sessionID: sid, accessToken: token, algorithm: "RS256", now: now)
/// claims.atHash   // TokenHash.of(token, algorithm: "RS256")
/// ```
public struct IDTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var sub: String
    public var aud: [String]
    /// The client it was issued to (OpenID Connect Core §2): always the one audience.
    public var azp: String
    public var exp: Int
    public var iat: Int
    public var authTime: Int
    public var nonce: String?
    public var atHash: String?
    public var sid: String?
    /// How the user signed in (RFC 8176): `pwd`, `otp`, `hwk`, and `mfa` when more than one.
    public var amr: [String]
    /// `1` for one factor, `2` for two (ISO/IEC 29115 levels, as many providers write them).
    public var acr: String

    /// How long an ID token is good: it is read once, when the client receives it.
    public static let lifetime: TimeInterval = 300

    /// The claims for the grant a code gave, issued at `now` with `accessToken`, to be signed
    /// with `algorithm` (which picks the `at_hash` hash).
    public init(
        grant: AuthorizationCode, issuer: String, sessionID: UUID?, accessToken: String?, algorithm: String, now: Date
    ) {
        iss = issuer
        sub = grant.userID.uuidString.lowercased()
        aud = [grant.clientID]
        azp = grant.clientID
        iat = Int(now.timeIntervalSince1970)
        exp = Int(now.addingTimeInterval(Self.lifetime).timeIntervalSince1970)
        authTime = Int(grant.authTime.timeIntervalSince1970)
        nonce = grant.nonce
        atHash = accessToken.map { TokenHash.of($0, algorithm: algorithm) }
        sid = sessionID?.uuidString.lowercased()
        let methods = Set(grant.methods)
        amr = grant.methods + (methods.count > 1 && !methods.contains("mfa") ? ["mfa"] : [])
        acr = methods.subtracting(["mfa"]).count > 1 ? "2" : "1"
    }

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nonce, sid, amr, acr
        case authTime = "auth_time"
        case atHash = "at_hash"
    }
}
