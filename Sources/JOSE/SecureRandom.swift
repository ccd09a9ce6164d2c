#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cryptographically secure random bytes from the operating system's generator: what authd's
/// secrets (refresh tokens, salts, keys) and the contract stub's generated values are made of.
///
/// ```swift
/// let salt = SecureRandom.bytes(16)
/// ```
public enum SecureRandom {
    /// `count` random bytes, in one call to the system (`getentropy`, 256 bytes at most per
    /// call) where the generator one word at a time would make a system call per eight bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            while filled < count {
                let chunk = Swift.min(256, count - filled)
                guard let start = buffer.baseAddress, getentropy(start + filled, chunk) == 0 else { break }
                filled += chunk
            }
            // getentropy fails only where the system has no such call; the standard library's
            // generator (the same source, a word at a time) fills the rest.
            var generator = SystemRandomNumberGenerator()
            while filled < count {
                buffer[filled] = generator.next()
                filled += 1
            }
            initialized = count
        }
    }

    /// `length` random characters of the base64url alphabet (6 random bits each).
    ///
    /// ```swift
    /// SecureRandom.base64URLText(length: 43)   // "q3N…", 258 random bits
    /// ```
    public static func base64URLText(length: Int) -> String {
        String(decoding: bytes(length).map { alphabet[Int($0 & 63)] }, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
