import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), the form of a JWT:
/// `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)`.
///
/// authd reads a token's header with it before choosing a key, the contract matchers check a
/// JWT's shape and claims with it, and the stub and the fixtures sign theirs with
/// ``serialize(header:payload:sign:)``.
///
/// ```swift
/// let token = try CompactJWS.serialize(header: Data(#"{"alg":"EdDSA"}"#.utf8), payload: claims) { input in
///     try key.signature(for: input)
/// }
/// let parsed = CompactJWS(token)          // nil unless three base64url segments
/// parsed?.payload                         // the claims' JSON bytes
/// key.publicKey.isValidSignature(parsed!.signature, for: parsed!.signingInput)
/// ```
public struct CompactJWS: Sendable, Equatable {
    /// The JOSE header's bytes (JSON).
    public let header: Data
    /// The payload's bytes (a JWT's claims as JSON).
    public let payload: Data
    /// The signature's bytes (may be empty).
    public let signature: Data
    /// What the signature covers: the first two segments as sent, joined by a dot.
    public let signingInput: Data

    /// Splits `text` into its three segments and decodes them; nil when it is not three
    /// base64url segments separated by dots.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(second + 1)...].contains(UInt8(ascii: ".")),
            let header = Base64URL.decode(bytes: bytes[..<first]),
            let payload = Base64URL.decode(bytes: bytes[(first + 1)..<second]),
            let signature = Base64URL.decode(bytes: bytes[(second + 1)...])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Data(bytes[..<second])
    }

    /// The compact serialization of `header` and `payload`, signed by `sign`, which is given
    /// the signing input.
    public static func serialize(header: Data, payload: Data, sign: (Data) throws -> Data) rethrows -> String {
        try serialize(encodedHeader: Base64URL.encode(header), payload: payload, sign: sign)
    }

    /// The compact serialization of `payload` under a header already in base64url (a signer
    /// encodes its header once, not for every token), signed by `sign`.
    ///
    /// ```swift
    /// let encodedHeader = Base64URL.encode(Data(#"{"alg":"EdDSA"}"#.utf8))   // once
    /// let token = try CompactJWS.serialize(encodedHeader: encodedHeader, payload: claims) { try key.signature(for: $0) }
    /// ```
    public static func serialize(encodedHeader: String, payload: Data, sign: (Data) throws -> Data) rethrows -> String {
        let signingInput = encodedHeader + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try sign(Data(signingInput.utf8)))
    }
}
