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
}
