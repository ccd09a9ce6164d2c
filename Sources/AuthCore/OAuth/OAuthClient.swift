import Foundation
import JOSE

/// A relying party registered with `authd client add NAME`: a resource server that
/// introspects and revokes tokens, and gets tokens of its own with the
/// `client_credentials` grant; with redirect URIs, also an app that signs users in through
/// `/authorize` (``signIn``). Its secret is 256 random bits, shown once and stored only as
/// its SHA-256 (``OpaqueToken``); a public client (a native or browser app) has none.
///
/// ```swift
/// let (client, secret) = try OAuthClient.register(id: "orders-api", audiences: ["https://orders.example.com"], now: Date())
/// client.verifies(secret: secret)   // true
/// ```
public struct OAuthClient: Sendable, Equatable {
    /// The `client_id`: 1–64 letters, digits, `.`, `_` or `-`.
    public var id: String
    /// Hex SHA-256 of the secret.
    public var secretHash: String
    /// The `aud` of the tokens it gets with `client_credentials` (its own id when empty).
    public var audiences: [String]
    /// When it was registered.
    public var createdAt: Date
    /// Whether it may introspect and revoke every token, not only those meant for it
    /// (``isMeant(for:)``): an operator's choice (`--trusted-introspector`), for a gateway.
    public var trustedIntrospector: Bool
    /// How it signs users in through `/authorize`; ``OIDCClientSettings/none`` for a
    /// resource server.
    public var signIn: OIDCClientSettings

    /// Creates a client record.
    public init(
        id: String, secretHash: String, audiences: [String], createdAt: Date, trustedIntrospector: Bool = false,
        signIn: OIDCClientSettings = .none
    ) {
        self.id = id
        self.secretHash = secretHash
        self.audiences = audiences
        self.createdAt = createdAt
        self.trustedIntrospector = trustedIntrospector
        self.signIn = signIn
    }

    /// The `client_id` of the access tokens authd's own routes issue (`POST /login` and the
    /// routes after it): the first-party login API is this client, and no registered client
    /// may take its name.
    public static let firstPartyID = "authd"

    /// A new client and its secret (`secret`, or 256 random bits), which is shown once and
    /// never stored; a public client gets none (an empty `secret`).
    /// - Throws: `invalid_request` when `id` is not a valid client id, is authd's own or a
    ///   UUID (the form of user ids), an audience is empty, a given secret is shorter than 32
    ///   characters (or over 512), or a public client is given a secret or trusted to introspect.
    public static func register(
        id: String, audiences: [String], secret: String? = nil, trustedIntrospector: Bool = false, signIn: OIDCClientSettings = .none,
        now: Date
    ) throws -> (client: OAuthClient, secret: String) {
        try validate(id: id)
        guard id != firstPartyID else { throw AuthError.invalidRequest("'\(firstPartyID)' is the client id of authd's own login routes") }
        // A client's token names it as its `sub`, where a user's names the user's id: a client
        // named like a user id would make the two subjects look alike to a resource server.
        guard UUID(uuidString: id) == nil else { throw AuthError.invalidRequest("a client id may not have the form of a user id (a UUID)") }
        guard audiences.allSatisfy({ !$0.isEmpty && $0.count <= 512 }) else {
            throw AuthError.invalidRequest("an audience must be 1 to 512 characters")
        }
        if signIn.isPublic {
            // RFC 6749 §2.1: a public client cannot keep a secret, so it is given none.
            guard secret == nil else { throw AuthError.invalidRequest("a public client holds no secret") }
            guard !trustedIntrospector else { throw AuthError.invalidRequest("a public client cannot be a trusted introspector") }
            return (OAuthClient(id: id, secretHash: "", audiences: audiences, createdAt: now, signIn: signIn), "")
        }
        if let secret {
            // A chosen secret is hashed as a random one is: it must be as hard to guess.
            guard (32...512).contains(secret.count) else { throw AuthError.invalidRequest("a client secret must be 32 to 512 characters") }
            return (
                OAuthClient(
                    id: id, secretHash: OpaqueToken.hash(of: secret), audiences: audiences, createdAt: now,
                    trustedIntrospector: trustedIntrospector, signIn: signIn), secret
            )
        }
        let secret = OpaqueToken.generate()
        return (
            OAuthClient(
                id: id, secretHash: secret.hash, audiences: audiences, createdAt: now, trustedIntrospector: trustedIntrospector,
                signIn: signIn),
            secret.token
        )
    }

    /// Checks a client id's form.
    /// - Throws: `invalid_request` naming what is wrong.
    public static func validate(id: String) throws {
        guard (1...64).contains(id.utf8.count) else { throw AuthError.invalidRequest("a client id must be 1 to 64 characters") }
        guard id.utf8.allSatisfy({ $0.isASCIIIdentifierByte }) else {
            throw AuthError.invalidRequest("a client id may hold only letters, digits, '.', '_' and '-'")
        }
    }

    /// Whether `secret` is this client's, compared in constant time; never for a public client.
    public func verifies(secret: String) -> Bool {
        let matches = ConstantTime.equal(Array(OpaqueToken.hash(of: secret).utf8), Array(secretHash.utf8))
        return matches && !signIn.isPublic && !secretHash.isEmpty
    }

    /// Stands in for an unknown client, so that a wrong id costs what a wrong secret does.
    static let absent = OAuthClient(id: "", secretHash: OpaqueToken.generate().hash, audiences: [], createdAt: .distantPast)

    /// The `aud` of its `client_credentials` tokens.
    public var tokenAudiences: [String] { audiences.isEmpty ? [id] : audiences }

    /// Whether the access token with `claims` is meant for this client, so that it may
    /// introspect or revoke it (RFC 7662 §4, RFC 7009 §2.1): one of its own (issued to it by
    /// `client_credentials`), or one whose `aud` names one of its audiences — or any token,
    /// for a trusted introspector. A user's token without an audience (authd serving no
    /// `--audience`) is meant for no relying party in particular, so only a trusted one.
    public func isMeant(for claims: AccessTokenClaims) -> Bool {
        trustedIntrospector || claims.clientID == id || !Set(claims.aud ?? []).isDisjoint(with: tokenAudiences)
    }
}

extension UInt8 {
    /// A letter, digit, `.`, `_` or `-`.
    fileprivate var isASCIIIdentifierByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || self == 0x2E || self == 0x5F
            || self == 0x2D
    }
}
