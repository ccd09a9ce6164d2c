import CArgon2
import CSodium
import Foundation

/// Hashes and verifies passwords with Argon2id, producing PHC strings such as
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
///
/// libsodium does the work: it picks SSSE3/AVX2 code at run time and is about a fifth
/// faster than the portable reference build. It verifies hashes with any number of lanes
/// but makes only one-lane ones, so hashes with `p` > 1 are made by the reference library
/// (libargon2). The two read and write the same PHC strings.
///
/// Both operations are CPU- and memory-heavy: run them through a ``BlockingWorkPool``,
/// never on an event loop.
///
/// ```swift
/// let hasher = Argon2idHasher()              // OWASP defaults: m=19 MiB, t=2, p=1
/// let phc = try hasher.hash("correct horse battery staple")
/// hasher.verify("correct horse battery staple", against: phc)   // true
/// hasher.needsRehash(phc)                                       // false
/// ```
public struct Argon2idHasher: Sendable {
    /// Argon2id cost parameters.
    ///
    /// ```swift
    /// let light = Argon2idHasher.Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)
    /// ```
    public struct Parameters: Sendable, Equatable, CustomStringConvertible {
        /// Memory cost in KiB (`m`).
        public var memoryKiB: UInt32
        /// Number of passes (`t`).
        public var iterations: UInt32
        /// Lanes (`p`).
        public var parallelism: UInt32

        /// Creates parameters; values are clamped to the library's minimums when hashing.
        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        /// OWASP's recommendation: m = 19 MiB, t = 2, p = 1.
        public static let owasp = Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1)

        /// `m=…,t=…,p=…`, as in a PHC string.
        public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }

        /// Parses `m=…,t=…,p=…`; returns nil when any part is missing or malformed.
        public init?(phcParameters text: Substring) {
            var values: [Substring: UInt32] = [:]
            for part in text.split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, let value = UInt32(pair[1]) else { return nil }
                values[pair[0]] = value
            }
            guard let m = values["m"], let t = values["t"], let p = values["p"], values.count == 3 else { return nil }
            self.init(memoryKiB: m, iterations: t, parallelism: p)
        }
    }

    /// Failure of the underlying library; carries its error text, never the password.
    public struct HashingError: Error, CustomStringConvertible {
        /// The library's message.
        public let description: String
    }

    /// The parameters new hashes are made with.
    public let parameters: Parameters
    private let saltLength = 16
    private let hashLength = 32

    /// Creates a hasher that hashes with `parameters`.
    public init(parameters: Parameters = .owasp) {
        self.parameters = parameters
    }

    /// Hashes `password` with a fresh random salt and returns the PHC string.
    public func hash(_ password: String) throws -> String {
        guard parameters.parallelism == 1 else { return try referenceHash(password) }
        try Self.requireSodium()
        var encoded = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_STRBYTES))
        // withCString passes the whole UTF-8, NULs included: the length says where it ends.
        let length = UInt64(password.utf8.count)
        let result = password.withCString { passwordChars in
            crypto_pwhash_argon2id_str(
                &encoded, passwordChars, length,
                UInt64(parameters.iterations), Int(parameters.memoryKiB) * 1024
            )
        }
        guard result == 0 else {
            throw HashingError(description: "libsodium could not hash with \(parameters) (out of memory or parameters out of range)")
        }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libsodium must be initialised once (it picks its CPU-specific code then).
    private static let sodiumReady = sodium_init() >= 0

    private static func requireSodium() throws {
        guard sodiumReady else { throw HashingError(description: "libsodium failed to initialise") }
    }

    /// Hashes with the reference library, which can make hashes with several lanes.
    private func referenceHash(_ password: String) throws -> String {
        let salt = SecureRandom.bytes(saltLength)
        let encodedLength = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism,
            UInt32(saltLength), UInt32(hashLength), Argon2_id
        )
        var encoded = [CChar](repeating: 0, count: encodedLength)
        let password = Array(password.utf8)
        let result = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                argon2id_hash_encoded(
                    parameters.iterations, parameters.memoryKiB, parameters.parallelism,
                    passwordBytes.baseAddress, passwordBytes.count,
                    saltBytes.baseAddress, saltBytes.count,
                    hashLength, &encoded, encodedLength
                )
            }
        }
        guard result == ARGON2_OK.rawValue else {
            throw HashingError(description: String(cString: argon2_error_message(result)))
        }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches the PHC string `phc`. A malformed `phc` never matches.
    ///
    /// The comparison inside the library is constant-time.
    public func verify(_ password: String, against phc: String) -> Bool {
        guard Self.sodiumReady, phc.hasPrefix("$argon2id$"), Self.parameters(of: phc) != nil else { return false }
        let length = UInt64(password.utf8.count)
        let result = password.withCString { passwordChars in
            phc.withCString { encoded in
                crypto_pwhash_argon2id_str_verify(encoded, passwordChars, length)
            }
        }
        return result == 0
    }

    /// Whether `phc` is weaker than what ``parameters`` would make: another algorithm, or
    /// less memory or fewer passes. A hash made with stronger parameters (say, before the
    /// service's were lowered) is kept, never downgraded; lanes (`p`) alone do not count.
    ///
    /// ```swift
    /// let hasher = Argon2idHasher()   // m=19456, t=2
    /// hasher.needsRehash("$argon2id$v=19$m=4096,t=3,p=1$…")    // true: less memory
    /// hasher.needsRehash("$argon2id$v=19$m=65536,t=3,p=4$…")   // false: stronger
    /// ```
    public func needsRehash(_ phc: String) -> Bool {
        guard let stored = Self.parameters(of: phc) else { return true }
        return stored.memoryKiB < parameters.memoryKiB || stored.iterations < parameters.iterations
    }

    /// The parameters an Argon2id PHC string was made with, or nil if it is not one.
    public static func parameters(of phc: String) -> Parameters? {
        // $argon2id$v=19$m=19456,t=2,p=1$salt$hash
        let fields = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
        return Parameters(phcParameters: fields[3])
    }
}
