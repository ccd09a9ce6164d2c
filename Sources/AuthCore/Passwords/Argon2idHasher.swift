import CArgon2
import Foundation
import JOSE

/// Hashes and verifies passwords with Argon2id, producing PHC strings such as
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
///
/// The work is done by the reference implementation, built into authd with its block
/// filling compiled for AVX2 and SSSE3 and picked at run time (the portable code elsewhere).
/// It reads and writes the PHC strings of every other Argon2 library. Lanes are filled one
/// after the other on the calling thread, so one verification never takes more than one core.
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
    public struct Parameters: Sendable, Hashable, CustomStringConvertible {
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
        guard phc.hasPrefix("$argon2id$"), Self.parameters(of: phc) != nil else { return false }
        let password = Array(password.utf8)
        let result = password.withUnsafeBytes { passwordBytes in
            argon2id_verify_reusing_memory(phc, passwordBytes.baseAddress, passwordBytes.count)
        }
        return result == ARGON2_OK.rawValue
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
