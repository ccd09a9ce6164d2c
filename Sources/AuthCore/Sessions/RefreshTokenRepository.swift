import Foundation

/// Stores refresh tokens by their hash only.
///
/// ```swift
/// try await tokens.store(RefreshTokenRecord(tokenHash: hash, familyID: UUID(), userID: user.id, expiresAt: exp, sessionExpiresAt: end))
/// ```
public protocol RefreshTokenRepository: Sendable {
    /// Records the first refresh token of a new session (its family), which ends at
    /// `record.sessionExpiresAt` whatever its rotations.
    func store(_ record: RefreshTokenRecord) async throws
    /// Exchanges the token whose hash is `presentedHash` for `successor`, atomically: of
    /// two concurrent calls with one token exactly one rotates, and the other sees a
    /// reuse. A token already rotated revokes its whole family. A disabled owner changes
    /// nothing. A revocation of the family and a rotation serialise: no successor outlives
    /// a revocation, and none outlives its session's end.
    func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) async throws -> RefreshRotation
    /// Revokes the family of the token whose hash is `tokenHash`; returns the owner, or nil
    /// when no such token exists. Revoking a revoked family is not an error.
    func revokeFamily(ofTokenHash tokenHash: String, now: Date) async throws -> UUID?
    /// Revokes every session of `userID` that is not revoked yet; returns how many.
    func revokeAll(ofUser userID: UUID, now: Date) async throws -> Int
    /// Revokes every session of `userID` that is not revoked yet but `kept`; returns how many.
    func revokeAll(ofUser userID: UUID, except kept: UUID, now: Date) async throws -> Int
    /// Revokes the session `id` if it is `userID`'s and live; returns whether it did.
    func revokeSession(_ id: UUID, ofUser userID: UUID, now: Date) async throws -> Bool
    /// Revokes the browser sign-in `id` (a session of `userID`) and every session it started
    /// (OpenID Connect clients'); returns how many were live.
    func revokeBrowserSession(_ id: UUID, ofUser userID: UUID, now: Date) async throws -> Int
    /// What the token whose hash is `tokenHash` is, without using it (introspection); nil
    /// when no such token is stored.
    func status(ofTokenHash tokenHash: String, now: Date) async throws -> RefreshTokenStatus?
    /// Whether the session `id` is live: stored, not revoked, not past its end.
    func isSessionLive(_ id: UUID, now: Date) async throws -> Bool
    /// The live sessions of `userID` (not revoked, not past their end), newest first.
    func sessions(ofUser userID: UUID, now: Date) async throws -> [Session]
    /// Deletes at most `limit` rows of what ended before `date`: tokens that expired then,
    /// or whose session ended or was revoked then, and sessions so ended with no token left
    /// (tokens first, so deleting a session never cascades to an unbounded number of
    /// rows). Returns how many rows it deleted.
    func deleteEnded(before date: Date, limit: Int) async throws -> Int
}

/// A refresh token as stored: its SHA-256, never the token itself.
public struct RefreshTokenRecord: Sendable, Equatable {
    /// Hex SHA-256 of the token.
    public var tokenHash: String
    /// The rotation family the token belongs to.
    public var familyID: UUID
    /// The owner.
    public var userID: UUID
    /// When it stops being accepted.
    public var expiresAt: Date
    /// When its session (the family) ends, whatever its rotations.
    public var sessionExpiresAt: Date

    /// Where the session began: the client's address, for its owner's list.
    public var clientAddress: String?
    /// The `User-Agent` the session began with (at most 256 characters, ``Session/bounded(_:)``).
    public var userAgent: String?
    /// The OpenID Connect client the session was issued to; nil for authd's own login routes.
    public var clientID: String?
    /// The browser sign-in (its session) that started this session, which signing out there ends.
    public var browserSession: UUID?
    /// The scopes granted to the client (nil for authd's own login routes).
    public var scopes: [String]?

    /// Creates a record; `expiresAt` is capped at `sessionExpiresAt`; `origin` says where
    /// the session began (it matters for the first token of a family only).
    public init(
        tokenHash: String, familyID: UUID, userID: UUID, expiresAt: Date, sessionExpiresAt: Date, origin: RequestOrigin = RequestOrigin(),
        clientID: String? = nil, browserSession: UUID? = nil, scopes: [String]? = nil
    ) {
        self.scopes = scopes
        self.clientID = clientID
        self.browserSession = browserSession
        self.tokenHash = tokenHash
        self.familyID = familyID
        self.userID = userID
        self.expiresAt = min(expiresAt, sessionExpiresAt)
        self.sessionExpiresAt = sessionExpiresAt
        self.clientAddress = origin.clientAddress
        self.userAgent = origin.userAgent.map(Session.bounded)
    }
}

/// A stored refresh token as introspection sees it.
///
/// ```swift
/// let status = try await storage.refreshTokens.status(ofTokenHash: RefreshToken.hash(of: token), now: now)
/// status?.isLive   // false once used, revoked, expired or its session ended
/// ```
public struct RefreshTokenStatus: Sendable, Equatable {
    /// The owner.
    public var userID: UUID
    /// Its session (family).
    public var sessionID: UUID
    /// When it was issued.
    public var issuedAt: Date
    /// When it stops being accepted.
    public var expiresAt: Date
    /// Not used, not revoked, not expired, and its session neither revoked nor ended (the
    /// owner's account is checked apart).
    public var isLive: Bool

    /// Creates a status.
    public init(userID: UUID, sessionID: UUID, issuedAt: Date, expiresAt: Date, isLive: Bool) {
        self.userID = userID
        self.sessionID = sessionID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.isLive = isLive
    }
}
