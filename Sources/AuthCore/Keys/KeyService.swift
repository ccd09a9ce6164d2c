import Foundation

/// The signing-key rules, for each ``SigningAlgorithm`` apart: an algorithm gets its first
/// key when something is first to be signed with it (Ed25519, access tokens', at the first
/// start; RS256 and ES256 at the first ID token that asks for them); the newest key is
/// current and signs; it and the one before it are published in the JWKS (so tokens signed before a rotation keep verifying); an older
/// key is deleted as soon as it leaves the published set, since nothing verifies with it
/// any more (authd's own verifier and the JWKS both hold the published keys only). Keys
/// are stored sealed under the injected key-encryption key; rotations are stamped by the
/// injected clock and audited.
///
/// ```swift
/// let keys = KeyService(storage: storage, keyEncryptionKey: kek, clock: clock)
/// let published = try await keys.ensureKey()      // at start: an Ed25519 key exists, all are sealed
/// let withRSA = try await keys.ensureKey(algorithms: [.edDSA, .rs256])
/// let next = try await keys.rotate()              // the new current Ed25519 key (each algorithm in use gets one)
/// for entry in try await keys.list() { print(entry.key.kid, entry.status) }
/// ```
public struct KeyService<Storage: AuthStorage>: Sendable {
    /// How many keys are published: the current one and its predecessor.
    public static var publishedCount: Int { 2 }

    /// Where keys and the audit log are kept.
    public let storage: Storage
    /// What seals the private keys at rest.
    public let keyEncryptionKey: KeyEncryptionKey
    /// The time source of new keys.
    public let clock: any WallClock

    /// Creates the service.
    public init(storage: Storage, keyEncryptionKey: KeyEncryptionKey, clock: any WallClock = SystemClock()) {
        self.storage = storage
        self.keyEncryptionKey = keyEncryptionKey
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
        /// Neither signs nor verifies: only a key left from before retired keys were
        /// deleted, until the next start or rotation deletes it.
        case retired
    }

    /// Seals every key still stored in clear (written before keys were sealed) under the
    /// key-encryption key, leaving no clear copy in storage; returns how many it sealed.
    /// It first opens every sealed key, so a wrong KEK seals nothing. Every operation that
    /// reads or adds keys runs it first, except ``revokeAll(origin:)``.
    /// - Throws: ``SealingError`` when a stored key does not open under the KEK.
    @discardableResult
    public func sealUnsealedKeys() async throws -> Int {
        for sealed in try await storage.signingKeys.keys(limit: nil) {
            _ = try keyEncryptionKey.open(sealed)
        }
        let clear = try await storage.signingKeys.clearKeys()
        guard !clear.isEmpty else { return 0 }
        for key in clear {
            try await storage.signingKeys.replaceClearKey(with: try keyEncryptionKey.seal(key))
        }
        try await storage.signingKeys.purgeClearCopies()
        return clear.count
    }

    /// The published keys of every algorithm in use, newest first: seals any clear key, makes
    /// the first key of each of `algorithms` that has none and deletes keys beyond the
    /// published set.
    /// - Throws: ``SealingError`` when the keys were sealed under another KEK.
    public func ensureKey(algorithms: Set<SigningAlgorithm> = [.edDSA]) async throws -> [SigningKey] {
        try await sealUnsealedKeys()
        // Made before the lock is taken (an RSA key takes a while), and only when missing.
        let present = try await algorithmsInUse()
        let candidates = try SigningAlgorithm.allCases.filter { algorithms.contains($0) && !present.contains($0) }.map {
            try keyEncryptionKey.seal(try SigningKey.generate(now: clock.now, algorithm: $0))
        }
        return try await storage.signingKeys.ensureSigningKeys(limit: Self.publishedCount, adding: candidates).map(keyEncryptionKey.open)
    }

    /// The algorithms that have a key.
    func algorithmsInUse() async throws -> Set<SigningAlgorithm> {
        Set(try await storage.signingKeys.keys(limit: 1).map(\.algorithm))
    }

    /// The published keys, current first.
    /// - Throws: ``SealingError`` when a key was sealed under another KEK or was altered.
    public func published() async throws -> [SigningKey] {
        try await storage.signingKeys.keys(limit: Self.publishedCount).map(keyEncryptionKey.open)
    }

    /// Makes a new current key of each algorithm in use; the previous current keys stay
    /// published, the ones before them are deleted. Returns the new Ed25519 key (access tokens').
    /// - Throws: ``SealingError`` when the stored keys were sealed under another KEK (so a
    ///   wrong KEK never adds a key the running instances cannot open).
    @discardableResult
    public func rotate(origin: RequestOrigin = RequestOrigin()) async throws -> SigningKey {
        try await rotateAll(origin: origin).current
    }

    /// ``rotate(origin:)``, answering every new key (and no revoked one).
    @discardableResult
    public func rotateAll(origin: RequestOrigin = RequestOrigin()) async throws -> Revocation {
        try await replaceCurrent(revoking: .none, origin: origin)
    }

    /// Which keys a new current key replaces at once.
    enum Revoking {
        /// None: the current key stays published.
        case none
        /// The current key (leaked).
        case current
        /// Every key, opened or not (leaked, or the KEK that sealed them is lost).
        case all
    }

    /// Adds a new current key, deleting the keys beyond the published set and those
    /// `revoking` names; audits the new key and each revoked one.
    func replaceCurrent(revoking: Revoking, origin: RequestOrigin) async throws -> Revocation {
        let revokedKids: [String]
        switch revoking {
        case .none:
            try await sealUnsealedKeys()
            revokedKids = []
        case .current:
            try await sealUnsealedKeys()
            var seen = Set<SigningAlgorithm>()
            revokedKids = try await published().filter { seen.insert($0.algorithm).inserted }.map(\.kid)
        case .all:
            revokedKids = try await storage.signingKeys.keys(limit: nil).map(\.kid) + storage.signingKeys.clearKeys().map(\.kid)
        }
        let now = clock.now
        let inUse = try await algorithmsInUse().union([.edDSA])
        let keys = try SigningAlgorithm.allCases.filter(inUse.contains).map { try SigningKey.generate(now: now, algorithm: $0) }
        try await storage.signingKeys.add(try keys.map(keyEncryptionKey.seal), removing: revokedKids, keeping: Self.publishedCount)
        for key in keys {
            try await storage.audit.record(SecurityEvent(kind: .keyRotated, at: now, origin: origin, detail: key.kid))
        }
        for kid in revokedKids {
            try await storage.audit.record(SecurityEvent(kind: .keyRevoked, at: now, origin: origin, detail: kid))
        }
        return Revocation(current: keys[0], added: keys, revokedKids: revokedKids)
    }

    /// Every stored key, newest first, with its role among its algorithm's keys.
    /// - Throws: ``SealingError`` when a key does not open under the KEK.
    public func list() async throws -> [Entry] {
        try await sealUnsealedKeys()
        var places: [SigningAlgorithm: Int] = [:]
        return try await storage.signingKeys.keys(limit: nil).map { sealed in
            let index = places[sealed.algorithm, default: 0]
            places[sealed.algorithm] = index + 1
            return Entry(
                key: try keyEncryptionKey.open(sealed), status: index == 0 ? .current : index < Self.publishedCount ? .published : .retired)
        }
    }
}
