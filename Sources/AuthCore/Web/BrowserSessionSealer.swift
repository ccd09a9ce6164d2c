import Crypto
import Foundation
import JOSE

/// Seals what authd keeps in a browser's cookies into a cookie's value and opens it again:
/// a ``BrowserSession``, or a ``ProviderSignInAttempt``. ChaCha20-Poly1305 under a key
/// derived from the KEK, one per kind of value (so every instance sharing the KEK opens what
/// another sealed, a restart logs no browser out, and one kind never opens as the other),
/// base64url. A value changed, sealed under another KEK or expired opens as nil: the page
/// then starts again.
///
/// ```swift
/// let sealer = BrowserSessionSealer(keyEncryptionKey: kek)
/// let cookie = try sealer.seal(session)
/// let again = sealer.open(cookie, now: clock.now)   // the session, or nil
/// ```
public struct BrowserSessionSealer: Sendable {
    /// The longest cookie value opened: a sealed value is far shorter (a browser keeps
    /// 4096 bytes per cookie), and a larger value is refused before any decoding.
    public static let maxSealedLength = 3072

    private let sessionKey: SymmetricKey
    private let attemptKey: SymmetricKey

    /// A sealer whose keys are derived from `keyEncryptionKey`.
    public init(keyEncryptionKey: KeyEncryptionKey) {
        sessionKey = keyEncryptionKey.derivedKey(purpose: "browser-sessions")
        attemptKey = keyEncryptionKey.derivedKey(purpose: "provider-sign-in")
    }

    /// The sealed session, as a cookie value.
    public func seal(_ session: BrowserSession) throws -> String {
        try seal(session, key: sessionKey)
    }

    /// The session a cookie value seals, nil when it is not one of ours or has expired.
    public func open(_ sealed: String, now: Date) -> BrowserSession? {
        open(sealed, as: BrowserSession.self, key: sessionKey).flatMap { $0.expiresAt > now ? $0 : nil }
    }

    /// The sealed attempt, as a cookie value.
    public func seal(_ attempt: ProviderSignInAttempt) throws -> String {
        try seal(attempt, key: attemptKey)
    }

    /// The attempt a cookie value seals, nil when it is not one of ours or has expired.
    public func openAttempt(_ sealed: String, now: Date) -> ProviderSignInAttempt? {
        open(sealed, as: ProviderSignInAttempt.self, key: attemptKey).flatMap { $0.expiresAt > now ? $0 : nil }
    }

    private func seal(_ value: some Encodable, key: SymmetricKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return Base64URL.encode(try ChaChaPoly.seal(try encoder.encode(value), using: key).combined)
    }

    private func open<Value: Decodable>(_ sealed: String, as type: Value.Type, key: SymmetricKey) -> Value? {
        guard sealed.utf8.count <= Self.maxSealedLength, let combined = Base64URL.decode(sealed),
            let box = try? ChaChaPoly.SealedBox(combined: combined), let plain = try? ChaChaPoly.open(box, using: key)
        else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Value.self, from: plain)
    }
}
