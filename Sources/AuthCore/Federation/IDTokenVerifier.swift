import Crypto
import Foundation
import JOSE

/// Verifies a provider's ID token (OpenID Connect Core §3.1.3.7): a JWS signed with RS256,
/// ES256 or EdDSA by a key the provider publishes (``ProviderKeyCache``); `iss` the
/// provider's; `aud` naming one of its client ids (and with several audiences, `azp` one of
/// them); `exp` not passed and `iat` not ahead, within a minute of leeway; a `sub`; and the
/// nonce expected. A token without `kid` is checked against the provider's one key of its
/// algorithm (§10.1), and refused when there are several.
///
/// ```swift
/// let verifier = IDTokenVerifier(keys: cache)
/// let token = try await verifier.verify(idToken, from: provider, nonce: .sha256(of: rawNonce))
/// token.subject   // "001234.abcd…"
/// ```
public struct IDTokenVerifier: Sendable {
    /// The nonce a token must carry.
    public enum Nonce: Sendable, Equatable {
        /// None: a token that carries one is refused, since it was asked for a request
        /// that said so.
        case absent
        /// This value itself (authd's own requests in the browser).
        case equal(String)
        /// The lowercase hex SHA-256 of this raw value: what a native app passes to Apple's
        /// or Google's SDK while it keeps the raw value to post (as Apple's examples do).
        case sha256(of: String)

        func accepts(_ claim: String?) -> Bool {
            switch self {
            case .absent: claim == nil
            case .equal(let expected): claim.map { ConstantTime.equal(Array($0.utf8), Array(expected.utf8)) } ?? false
            case .sha256(let raw):
                claim.map { ConstantTime.equal(Array($0.utf8), Array(SHA256.hexDigest(of: raw).utf8)) } ?? false
            }
        }
    }

    /// Seconds of clock difference allowed on `exp` and `iat`.
    public static let leeway: TimeInterval = 60

    /// Where the providers' keys come from.
    public let keys: ProviderKeyCache
    /// The time source.
    public let clock: any WallClock

    /// Creates the verifier.
    public init(keys: ProviderKeyCache, clock: any WallClock = SystemClock()) {
        self.keys = keys
        self.clock = clock
    }

    /// The verified token's claims.
    /// - Throws: ``IDTokenRefusal`` naming the first check that failed, or
    ///   ``FederationError`` when the provider's keys could not be fetched.
    public func verify(_ token: String, from provider: IdentityProvider, nonce: Nonce) async throws -> VerifiedIDToken {
        guard token.utf8.count <= 16_384, let jws = CompactJWS(token),
            let header = try? JSONSerialization.jsonObject(with: jws.header) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: jws.payload) as? [String: Any]
        else { throw IDTokenRefusal.malformed }
        // No extension authd does not understand (RFC 7515 §4.1.11).
        guard header["crit"] == nil, let name = header["alg"] as? String, let algorithm = ProviderPublicKey.Algorithm(rawValue: name)
        else { throw IDTokenRefusal.algorithm }
        let kid = header["kid"] as? String
        let published = try await keys.keys(of: provider, kid: kid)
        let key: ProviderPublicKey
        if let kid {
            guard let named = published.first(where: { $0.kid == kid }) else { throw IDTokenRefusal.unknownKey }
            guard named.algorithm == algorithm else { throw IDTokenRefusal.algorithm }
            key = named
        } else {
            let ofAlgorithm = published.filter { $0.algorithm == algorithm }
            guard ofAlgorithm.count == 1, let only = ofAlgorithm.first else { throw IDTokenRefusal.unknownKey }
            key = only
        }
        guard key.verifies(jws.signature, of: jws.signingInput) else { throw IDTokenRefusal.signature }

        guard let issuer = claims["iss"] as? String, provider.acceptedIssuers.contains(issuer) else { throw IDTokenRefusal.issuer }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard let audience = audiences.first(where: provider.clientIDs.contains) else { throw IDTokenRefusal.audience }
        if audiences.count > 1 {
            guard let party = claims["azp"] as? String, provider.clientIDs.contains(party) else { throw IDTokenRefusal.authorizedParty }
        }
        let now = clock.now
        guard let expiresAt = Self.date(claims["exp"]), expiresAt.addingTimeInterval(Self.leeway) > now else {
            throw IDTokenRefusal.expired
        }
        guard let issuedAt = Self.date(claims["iat"]), issuedAt <= now.addingTimeInterval(Self.leeway) else {
            throw IDTokenRefusal.issuedInFuture
        }
        guard let subject = claims["sub"] as? String, !subject.isEmpty, subject.utf8.count <= 255 else { throw IDTokenRefusal.subject }
        guard nonce.accepts(claims["nonce"] as? String) else { throw IDTokenRefusal.nonce }

        let given = [claims["given_name"] as? String, claims["family_name"] as? String].compactMap { $0 }.filter { !$0.isEmpty }
        return VerifiedIDToken(
            subject: subject, audience: audience, email: (claims["email"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            emailVerified: Self.flag(claims["email_verified"]),
            name: (claims["name"] as? String) ?? (given.isEmpty ? nil : given.joined(separator: " ")),
            issuedAt: issuedAt, expiresAt: expiresAt, digest: Data(SHA256.hash(data: Data(token.utf8)))
        )
    }

    /// A NumericDate claim (RFC 7519 §2).
    private static func date(_ value: Any?) -> Date? {
        (value as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
    }

    /// `email_verified`: a JSON boolean, or (Apple's) the string "true".
    private static func flag(_ value: Any?) -> Bool {
        if let text = value as? String { return text == "true" }
        return value as? Bool ?? false
    }
}

/// What a verified ID token says of its user.
public struct VerifiedIDToken: Sendable, Equatable {
    /// `sub`: the user at the provider, never reassigned (with the provider, the identity).
    public var subject: String
    /// The provider's client id among `aud` the token was issued for.
    public var audience: String
    /// `email`, if it gave one.
    public var email: String?
    /// `email_verified`: whether the provider says the user proved `email` theirs.
    public var emailVerified: Bool
    /// `name` (or `given_name` and `family_name`), if it gave one.
    public var name: String?
    /// `iat`.
    public var issuedAt: Date
    /// `exp`: until when it is remembered as used.
    public var expiresAt: Date
    /// Its SHA-256, by which it is remembered as used.
    public var digest: Data

    /// Creates the value.
    public init(
        subject: String, audience: String, email: String?, emailVerified: Bool, name: String?, issuedAt: Date, expiresAt: Date,
        digest: Data
    ) {
        self.subject = subject
        self.audience = audience
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.digest = digest
    }
}
