import Foundation

/// The signing-key rules: the newest key is current and signs; it and the one before it
/// are published in the JWKS (so tokens signed before a rotation keep verifying); older
/// keys are retired. Rotations are stamped by the injected clock and audited.
///
/// ```swift
/// let keys = KeyService(storage: storage, clock: clock)
/// let published = try await keys.ensureKey()      // at start: one key exists
/// let next = try await keys.rotate()              // the new current key
/// for entry in try await keys.list() { print(entry.key.kid, entry.status) }
/// ```
public struct KeyService<Storage: AuthStorage>: Sendable {
    /// How many keys are published: the current one and its predecessor.
    public static var publishedCount: Int { 2 }

    /// Where keys and the audit log are kept.
    public let storage: Storage
    /// The time source of new keys.
    public let clock: any WallClock

    /// Creates the service.
    public init(storage: Storage, clock: any WallClock = SystemClock()) {
        self.storage = storage
        self.clock = clock
    }

    /// A key and what it is used for now.
    public struct Entry: Sendable, Equatable {
        /// The key.
        public let key: SigningKey
        /// Its role.
        public let status: Status
    }

    /// The role of a key.
    public enum Status: String, Sendable, Equatable {
        /// Signs new tokens and is published.
        case current
        /// Published, so tokens it signed still verify; signs nothing new.
        case published
        /// Neither signs nor verifies.
        case retired
    }

    /// The published keys, current first; makes the first key when there is none.
    public func ensureKey() async throws -> [SigningKey] {
        let clock = self.clock
        return try await storage.signingKeys.ensureSigningKey(limit: Self.publishedCount) { SigningKey.generate(now: clock.now) }
    }

    /// The published keys, current first.
    public func published() async throws -> [SigningKey] {
        try await storage.signingKeys.keys(limit: Self.publishedCount)
    }

    /// Makes a new current key; the previous current key stays published.
    @discardableResult
    public func rotate(origin: RequestOrigin = RequestOrigin()) async throws -> SigningKey {
        let key = SigningKey.generate(now: clock.now)
        try await storage.signingKeys.add(key)
        try await storage.audit.record(SecurityEvent(kind: .keyRotated, at: key.createdAt, origin: origin, detail: key.kid))
        return key
    }

    /// Every key, newest first, with its role.
    public func list() async throws -> [Entry] {
        try await storage.signingKeys.keys(limit: nil).enumerated().map { index, key in
            Entry(key: key, status: index == 0 ? .current : index < Self.publishedCount ? .published : .retired)
        }
    }
}
