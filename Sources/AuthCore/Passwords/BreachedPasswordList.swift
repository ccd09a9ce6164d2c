import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An offline list of breached passwords in the format Have I Been Pwned distributes
/// ("ordered by hash"): lines `SHA1HEX:COUNT`, 40 uppercase hex digits, a colon and a count,
/// LF or CRLF line ends, sorted by hash. A lookup is a binary search over byte offsets with
/// `pread`, about 40 reads of at most 128 bytes for a 40 GB file; the file is never loaded.
///
/// The hash is SHA-1 of the password's UTF-8 bytes as given (pass the normalised password,
/// ``PasswordPolicy/normalized(_:)``; HIBP hashes the UTF-8 of what was typed).
///
/// ```swift
/// let breached = try BreachedPasswordList(path: "pwnedpasswords.txt")   // checks the first line
/// try breached.contains("P@ssw0rd")                                   // true
/// ```
public final class BreachedPasswordList: Sendable {
    /// Why a file cannot be used; the description names the file.
    public struct Invalid: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// The file, as given.
    public let path: String
    /// Its size in bytes when opened.
    public let size: Int64
    private let descriptor: Int32
    private let readsMade = Atomic<Int>(0)

    /// The most bytes one read asks for: more than a line (40 + 1 + a count + CRLF) and the
    /// next line's hash, so that one read finds a line start and its hash.
    static let window = 128

    /// Opens `path` and checks that it is a non-empty regular file whose first line is
    /// `SHA1HEX:COUNT`.
    /// - Throws: ``Invalid`` naming the file and what is wrong.
    public init(path: String) throws(Invalid) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Invalid(description: "cannot open the breached-password list \(path): \(Self.lastError())")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else {
            close(descriptor)
            throw Invalid(description: "the breached-password list \(path) is not a non-empty regular file")
        }
        let first: [UInt8]
        do {
            first = try Self.read(Self.window, at: 0, from: descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        guard Self.isFirstLine(first) else {
            close(descriptor)
            throw Invalid(
                description:
                    "the breached-password list \(path) does not start with a line SHA1HEX:COUNT (40 uppercase hex digits, a colon, a count) as Have I Been Pwned distributes it"
            )
        }
        self.path = path
        self.size = Int64(status.st_size)
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The hash `password` is looked up by: the uppercase hex SHA-1 of its UTF-8 bytes.
    ///
    /// ```swift
    /// BreachedPasswordList.hash(of: "password")   // "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8"
    /// ```
    public static func hash(of password: String) -> String {
        Insecure.SHA1.hexDigest(of: password, uppercase: true)
    }

    /// Whether the SHA-1 of `password`'s UTF-8 bytes is on the list.
    /// - Throws: ``Invalid`` when the file cannot be read or a line read is not `SHA1HEX:…`.
    public func contains(_ password: String) throws(Invalid) -> Bool {
        let target = Array(Self.hash(of: password).utf8)
        // The smallest offset whose next line start holds a hash >= target (or is the end).
        var low: Int64 = 0
        var high = size
        while low < high {
            let middle = low + (high - low) / 2
            guard let line = try line(atOrAfter: middle) else {
                high = middle
                continue
            }
            if line.hash.lexicographicallyPrecedes(target) {
                low = line.start + 1
            } else {
                high = middle
            }
        }
        guard let found = try line(atOrAfter: low) else { return false }
        return found.hash.elementsEqual(target)
    }

    /// How many reads lookups have made so far, each of at most 128 bytes.
    public var reads: Int {
        readsMade.load(ordering: .relaxed)
    }

    /// The first line that starts at or after `offset`: its start and its hash, or nil when
    /// no line starts there (the end of the file).
    private func line(atOrAfter offset: Int64) throws(Invalid) -> (start: Int64, hash: ArraySlice<UInt8>)? {
        var start = offset
        var bytes: ArraySlice<UInt8>
        if offset == 0 {
            bytes = try read(Self.window, at: 0)[...]
        } else {
            // From the byte before: if that is a line end, a line starts at `offset` itself.
            let from = offset - 1
            let window = try read(Self.window, at: from)
            guard let newline = window.firstIndex(of: UInt8(ascii: "\n")) else {
                if from + Int64(window.count) >= size { return nil }  // inside a last line without a line end
                throw corrupt(at: from)
            }
            start = from + Int64(newline) + 1
            bytes = window[(newline + 1)...]
        }
        guard start < size else { return nil }
        if bytes.count < 41, start + Int64(bytes.count) < size {
            bytes = try read(41, at: start)[...]
        }
        guard bytes.count >= 41, Self.isHashAndColon(bytes.prefix(41)) else { throw corrupt(at: start) }
        return (start, bytes.prefix(40))
    }

    private func read(_ count: Int, at offset: Int64) throws(Invalid) -> [UInt8] {
        readsMade.add(1, ordering: .relaxed)
        return try Self.read(count, at: offset, from: descriptor, path: path)
    }

    private func corrupt(at offset: Int64) -> Invalid {
        Invalid(description: "the breached-password list \(path) has a line that is not SHA1HEX:COUNT near byte \(offset)")
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    private static func read(_ count: Int, at offset: Int64, from descriptor: Int32, path: String) throws(Invalid) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(descriptor, base + filled, count - filled, off_t(offset) + off_t(filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw Invalid(description: "cannot read the breached-password list \(path): \(lastError())")
            }
            if got == 0 { break }
            filled += got
        }
        return Array(buffer.prefix(filled))
    }

    /// Whether `bytes` start with `SHA1HEX:COUNT` and a line end (or the end of the file).
    private static func isFirstLine(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 42, isHashAndColon(bytes.prefix(41)) else { return false }
        let rest = bytes.dropFirst(41)
        let digits = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard !digits.isEmpty else { return false }
        let end = rest.dropFirst(digits.count)
        return end.isEmpty || end.starts(with: "\n".utf8) || end.starts(with: "\r\n".utf8)
    }

    /// Whether `bytes` are 40 uppercase hex digits and a colon.
    private static func isHashAndColon(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count == 41 && bytes.last == UInt8(ascii: ":")
            && bytes.dropLast().allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0)
            }
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
