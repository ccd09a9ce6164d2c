import Crypto
import Foundation
import Synchronization
import WebAuthn

/// What a credential id looks like in login options, apart from its bytes: its length and
/// the transports named with it. A decoy (the answer for a name without passkeys) takes the
/// shape most registered passkeys have, so it cannot be told from a real one by its form.
///
/// ```swift
/// let shape = try await storage.passkeys.commonShape() ?? .typical
/// let decoy = shape.decoy(for: "nobody", key: secret)   // 16 bytes, ["hybrid", "internal"]
/// ```
public struct PasskeyShape: Sendable, Hashable {
    /// The credential id's length in bytes.
    public var idLength: Int
    /// The transports the registration reported (none: the descriptor has no `transports`).
    public var transports: [String]

    /// Creates a shape.
    public init(idLength: Int, transports: [String]) {
        self.idLength = idLength
        self.transports = transports
    }

    /// The shape before any passkey is registered: a platform passkey's (16 bytes, reachable
    /// on the device and across devices), as browsers' built-in authenticators make them.
    public static let typical = PasskeyShape(idLength: 16, transports: ["hybrid", "internal"])

    /// A descriptor of this shape whose id is derived from `usernameKey` under `key`
    /// (SHA-256 without one): the same name gets the same decoy each time.
    public func decoy(for usernameKey: String, key: SymmetricKey?) -> PublicKeyCredentialDescriptorJSON {
        var id = Data()
        var block: UInt32 = 0
        // HMAC blocks over a counter and the name, as many as the length needs (ids are 16
        // to 1,023 bytes: WebAuthn L3 §5.8.3).
        while id.count < idLength {
            let input = Data("passkey-decoy\u{0}\(block)\u{0}\(usernameKey)".utf8)
            id += key.map { Data(HMAC<SHA256>.authenticationCode(for: input, using: $0)) } ?? Data(SHA256.hash(data: input))
            block += 1
        }
        return PublicKeyCredentialDescriptorJSON(id: id.prefix(idLength), transports: transports)
    }
}

/// The common shape, read at most once per `lifetime` (the login options of names without
/// passkeys would otherwise count the whole table each time).
final class PasskeyShapeCache: Sendable {
    private let lifetime: TimeInterval
    private let state = Mutex<(shape: PasskeyShape, until: Date)?>(nil)

    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// The cached shape while it is fresh at `now`, else `read()`'s (``PasskeyShape/typical``
    /// when it finds none), kept until `now + lifetime`.
    func shape(now: Date, read: () async throws -> PasskeyShape?) async throws -> PasskeyShape {
        if let cached = state.withLock({ $0 }), cached.until > now { return cached.shape }
        let shape = try await read() ?? .typical
        state.withLock { $0 = (shape, now.addingTimeInterval(lifetime)) }
        return shape
    }
}
