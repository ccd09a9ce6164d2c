import Crypto
import Foundation

/// The `Authd-Signature` header of a delivery, as Stripe signs webhooks:
/// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the shared secret>`. A
/// receiver recomputes it, compares in constant time, and refuses a timestamp older than
/// its tolerance (a replayed message).
///
/// ```swift
/// let header = DeliverySignature.header(for: body, secret: secret, at: Date())
/// try DeliverySignature.verify(header, body: body, secret: secret, now: Date())   // passes
/// ```
public enum DeliverySignature {
    /// The header's name.
    public static let headerName = "Authd-Signature"

    /// The header value for `body` sent at `at`.
    public static func header(for body: Data, secret: SymmetricKey, at: Date) -> String {
        let timestamp = Int(at.timeIntervalSince1970)
        return "t=\(timestamp),v1=\(hexString(code(timestamp: timestamp, body: body, secret: secret), uppercase: false))"
    }

    /// Checks `header` for `body`: the code matches (compared in constant time) and the
    /// timestamp is within `tolerance` seconds of `now`.
    /// - Throws: ``DeliverySignatureError``.
    public static func verify(_ header: String, body: Data, secret: SymmetricKey, now: Date, tolerance: TimeInterval = 300) throws {
        var timestamp: Int?
        var codes: [Data] = []
        for field in header.split(separator: ",") {
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) }
            if pair[0] == "v1", let bytes = bytes(hex: pair[1]) { codes.append(bytes) }
        }
        guard let timestamp, !codes.isEmpty else { throw DeliverySignatureError.malformed }
        guard abs(now.timeIntervalSince1970 - TimeInterval(timestamp)) <= tolerance else { throw DeliverySignatureError.stale }
        guard codes.contains(where: { HMAC<SHA256>.isValidAuthenticationCode($0, authenticating: signed(timestamp, body), using: secret) })
        else {
            throw DeliverySignatureError.mismatch
        }
    }

    private static func signed(_ timestamp: Int, _ body: Data) -> Data {
        Data("\(timestamp).".utf8) + body
    }

    private static func code(timestamp: Int, body: Data, secret: SymmetricKey) -> HashedAuthenticationCode<SHA256> {
        HMAC<SHA256>.authenticationCode(for: signed(timestamp, body), using: secret)
    }

    private static func bytes(hex: String) -> Data? {
        guard hex.count == 64 else { return nil }
        var data = Data(capacity: 32)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}

/// Why a delivery's signature was refused.
///
/// ```swift
/// catch DeliverySignatureError.stale { … }
/// ```
public enum DeliverySignatureError: Error, Sendable, Equatable {
    /// The header is not `t=…,v1=…`.
    case malformed
    /// The timestamp is outside the tolerance.
    case stale
    /// No code matches the body.
    case mismatch
}
