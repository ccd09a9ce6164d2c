import Foundation

extension Data {
    /// Unpadded base64url (RFC 4648 §5), as used in JWTs and JWKs.
    ///
    /// ```swift
    /// Data([0xfb, 0xff]).base64URLEncodedString()   // "-_8"
    /// ```
    public func base64URLEncodedString() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url, padded or not; nil when `text` is not base64url.
    ///
    /// ```swift
    /// Data(base64URLEncoded: "-_8")   // Data([0xfb, 0xff])
    /// ```
    public init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
