/// Cryptographically secure random bytes from the system generator.
///
/// ```swift
/// let salt = SecureRandom.bytes(16)
/// ```
public enum SecureRandom {
    /// `count` random bytes, eight from each call to the generator: each call is a system
    /// call on Linux (`getrandom`), so a refresh token's 32 bytes cost four, not 32.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let word = generator.next()
            let taken = Swift.min(MemoryLayout<UInt64>.size, count - bytes.count)
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0.prefix(taken)) }
        }
        return bytes
    }
}
