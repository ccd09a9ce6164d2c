import Foundation

/// What presenting a refresh token did: the answer of
/// ``RefreshTokenRepository/rotate(presentedHash:successor:now:)``.
///
/// ```swift
/// switch try await tokens.rotate(presentedHash: hash, successor: next, now: clock.now) {
/// case .rotated(let userID, let sessionID, let expiresAt, _): issue(for: userID, in: sessionID, refreshUntil: expiresAt)
/// case .reused: throw AuthError.invalidToken   // the family is revoked now
/// default: throw AuthError.invalidToken
/// }
/// ```
public enum RefreshRotation: Sendable, Equatable {
    /// The token was current: it is now used and `successor` joined its family (the
    /// session `sessionID`), expiring at `expiresAt` (its own lifetime, or the session's end
    /// if that comes first).
    /// `scopes`: what an OpenID Connect client's session was granted (nil for authd's own).
    case rotated(userID: UUID, sessionID: UUID, expiresAt: Date, scopes: [String]? = nil)
    /// The token had already been rotated: its whole family is revoked now.
    case reused(userID: UUID)
    /// No such token.
    case unknown
    /// The token expired, or its session reached its absolute end.
    case expired
    /// The token's family was revoked (logout, a reuse, a password change, revoke-sessions).
    case revoked
    /// The account is disabled; nothing changed.
    case disabled(userID: UUID)

    /// The metric and audit label: `rotated`, `reused`, `unknown`, `expired`, `revoked`, `disabled`.
    public var label: String {
        switch self {
        case .rotated: "rotated"
        case .reused: "reused"
        case .unknown: "unknown"
        case .expired: "expired"
        case .revoked: "revoked"
        case .disabled: "disabled"
        }
    }
}

/// The audit events a refresh writes, by its outcome: the owner of the presented token
/// becomes their `userID`.
///
/// ```swift
/// let events = RotationEvents(
///     rotated: SecurityEvent(kind: .tokenRefreshed, at: now, origin: origin),
///     reused: SecurityEvent(kind: .refreshReuseDetected, at: now, origin: origin, detail: "family revoked")
/// )
/// events.event(for: .reused(userID: id))?.userID   // id
/// ```
public struct RotationEvents: Sendable, Equatable {
    /// Written when the token was current and rotated.
    public var rotated: SecurityEvent
    /// Written when an already rotated token came back (its family is revoked).
    public var reused: SecurityEvent

    /// Creates the pair.
    public init(rotated: SecurityEvent, reused: SecurityEvent) {
        self.rotated = rotated
        self.reused = reused
    }

    /// The event `outcome` writes, with its owner; nil for the outcomes that write none.
    public func event(for outcome: RefreshRotation) -> SecurityEvent? {
        var event: SecurityEvent
        switch outcome {
        case .rotated(let owner, _, _, _):
            event = rotated
            event.userID = owner
        case .reused(let owner):
            event = reused
            event.userID = owner
        case .unknown, .expired, .revoked, .disabled:
            return nil
        }
        return event
    }
}

/// The token that replaces a rotated one: its hash and expiry (the family and owner
/// come from the presented token).
///
/// ```swift
/// let next = RefreshSuccessor(tokenHash: SHA256.hexDigest(of: token), expiresAt: now + lifetime)
/// ```
public struct RefreshSuccessor: Sendable, Equatable {
    /// Hex SHA-256 of the new token.
    public var tokenHash: String
    /// When it stops being accepted.
    public var expiresAt: Date
    /// The client the refresh is for: the OpenID Connect client's id, nil for authd's own
    /// login routes. A token of another client's session is refused as unknown.
    public var clientID: String?

    /// Creates a successor.
    public init(tokenHash: String, expiresAt: Date, clientID: String? = nil) {
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
        self.clientID = clientID
    }
}
