import Crypto
import Foundation
import JOSE

/// Seals a ``BrowserSession`` into a cookie's value and opens it again: ChaCha20-Poly1305
/// under a key derived from the KEK (so every instance sharing the KEK opens what another
/// sealed, and a restart logs no browser out), base64url. A value changed, sealed under
/// another KEK or expired opens as nil: the page then starts a new session.
///
/// ```swift
/// let sealer = BrowserSessionSealer(keyEncryptionKey: kek)
/// let cookie = try sealer.seal(session)
/// let again = sealer.open(cookie, now: clock.now)   // the session, or nil
/// ```
public struct BrowserSessionSealer: Sendable {
    /// The longest cookie value opened: a sealed session is far shorter, and a larger
    /// value is refused before any decoding.
    public static let maxSealedLength = 2048

    private let key: SymmetricKey

    /// A sealer whose key is derived from `keyEncryptionKey`.
    public init(keyEncryptionKey: KeyEncryptionKey) {
        key = keyEncryptionKey.derivedKey(purpose: "browser-sessions")
    }

    /// The sealed session, as a cookie value.
    public func seal(_ session: BrowserSession) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return Base64URL.encode(try ChaChaPoly.seal(try encoder.encode(session), using: key).combined)
    }

    /// The session a cookie value seals, nil when it is not one of ours or has expired.
    public func open(_ sealed: String, now: Date) -> BrowserSession? {
        guard sealed.utf8.count <= Self.maxSealedLength, let combined = Base64URL.decode(sealed),
            let box = try? ChaChaPoly.SealedBox(combined: combined), let plain = try? ChaChaPoly.open(box, using: key)
        else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let session = try? decoder.decode(BrowserSession.self, from: plain), session.expiresAt > now else { return nil }
        return session
    }
}
