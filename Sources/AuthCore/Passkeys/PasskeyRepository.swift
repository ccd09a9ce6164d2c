import Foundation

/// Storage of passkeys and of the accounts' WebAuthn user handles.
///
/// ```swift
/// let handle = try await storage.passkeys.userHandle(ofUser: user.id, creating: Data(SecureRandom.bytes(32)))
/// ```
public protocol PasskeyRepository: Sendable {
    /// The account's user handle: the one it has, or `candidate`, stored now when it had
    /// none; nil when there is no such account.
    func userHandle(ofUser userID: UUID, creating candidate: Data) async throws -> Data?
    /// The account's user handle, if it has one.
    func userHandle(ofUser userID: UUID) async throws -> Data?
    /// The account's passkeys, oldest first.
    func passkeys(ofUser userID: UUID) async throws -> [Passkey]
    /// The passkey with this credential id.
    func passkey(id: Data) async throws -> Passkey?
    /// Stores a new passkey; false, storing nothing, when its id is registered already or
    /// the account has `limit` passkeys.
    func add(_ passkey: Passkey, limit: Int) async throws -> Bool
    /// Records a login it signed — its new counter, backup state and time — if the counter
    /// moves forward from the stored one (or both are 0: an authenticator without a counter,
    /// WebAuthn L3 §6.1.1); false, recording nothing, otherwise. One guarded update, so of
    /// assertions with the same counter made at once (a cloned authenticator's) one counts.
    func recordUse(id: Data, signCount: UInt32, backedUp: Bool, at date: Date) async throws -> Bool
    /// Deletes the account's passkey with this id; false when it has none.
    func delete(id: Data, ofUser userID: UUID) async throws -> Bool
    /// Deletes the account's passkey with this id only if the account keeps another way in
    /// (a password of its own, another passkey, an identity at a provider), checked and
    /// deleted in one statement under the account's row lock; false, deleting nothing,
    /// otherwise (or when it has no such passkey).
    func deleteKeepingAWayIn(id: Data, ofUser userID: UUID) async throws -> Bool
    /// The id length and transports most stored passkeys have (ties broken by the shorter
    /// id); nil when none is stored.
    func commonShape() async throws -> PasskeyShape?
}
