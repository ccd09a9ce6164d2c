import Crypto
import Foundation

/// A time-based one-time password key (RFC 6238): the codes an authenticator app shows,
/// computed here so that a contract run, the stub and a client's tests can know them.
/// A code is the HOTP (RFC 4226) of the time step, `floor(unix time / period)`.
///
/// ```swift
/// let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP")           // base32, as an enrolment hands it out
/// totp.code(at: Date())                                       // 6 digits, HMAC-SHA1, 30 s steps
/// try TOTP(secret: "JBSWY3DPEHPK3PXP", digits: 8, algorithm: .sha256).code(at: Date())
/// ```
///
/// In a client test against `ContractStub` (which makes this type available as well), the
/// secret is the one the stub answered the enrolment with:
///
/// ```swift
/// let enrolment = try await api.enrolTOTP()                   // through stub.urlSession
/// try await api.logIn(mfaToken: token, code: try TOTP(secret: enrolment.secret).code(at: Date()))
/// ```
public struct TOTP: Sendable, Hashable {
    /// The HMAC's hash function.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// HMAC-SHA1, what authenticator apps use unless told otherwise.
        case sha1 = "SHA1"
        /// HMAC-SHA256.
        case sha256 = "SHA256"
        /// HMAC-SHA512.
        case sha512 = "SHA512"
    }

    /// Why a key cannot make codes.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        private enum Reason: Equatable {
            case notBase32
            case emptyKey
            case digits(Int)
            case period(Int)
        }

        private let reason: Reason

        private init(_ reason: Reason) {
            self.reason = reason
        }

        static let notBase32 = Error(.notBase32)
        static let emptyKey = Error(.emptyKey)
        static func digits(_ digits: Int) -> Error { Error(.digits(digits)) }
        static func period(_ period: Int) -> Error { Error(.period(period)) }

        /// What is wrong, for a person.
        public var description: String {
            switch reason {
            case .notBase32: "the secret is not base32 (letters A–Z and digits 2–7)"
            case .emptyKey: "the secret holds no key"
            case .digits(let digits): "a code has 6 to 8 digits, not \(digits)"
            case .period(let period): "a time step lasts at least one second, not \(period)"
            }
        }
    }

    /// The digits a code may have.
    public static let allowedDigits = 6...8

    /// The shared key's bytes.
    public let key: [UInt8]
    /// Digits per code (6 to 8).
    public let digits: Int
    /// Seconds per time step.
    public let period: Int
    /// The HMAC's hash function.
    public let algorithm: Algorithm

    /// A key of `key`'s bytes.
    /// - Throws: ``Error`` for an empty key, `digits` outside 6...8, or a `period` below 1.
    public init(key: [UInt8], digits: Int = 6, period: Int = 30, algorithm: Algorithm = .sha1) throws {
        guard !key.isEmpty else { throw Error.emptyKey }
        guard Self.allowedDigits.contains(digits) else { throw Error.digits(digits) }
        guard period >= 1 else { throw Error.period(period) }
        self.key = key
        self.digits = digits
        self.period = period
        self.algorithm = algorithm
    }

    /// A key shared as base32 text (``Base32``: either case; spaces and `=` padding ignored).
    /// - Throws: ``Error`` when `secret` is not base32, or as ``init(key:digits:period:algorithm:)``.
    public init(secret: String, digits: Int = 6, period: Int = 30, algorithm: Algorithm = .sha1) throws {
        guard let key = Base32.decode(secret) else { throw Error.notBase32 }
        try self.init(key: key, digits: digits, period: period, algorithm: algorithm)
    }

    /// The time step `date` falls in: whole periods since 1970.
    ///
    /// ```swift
    /// try TOTP(secret: "JBSWY3DPEHPK3PXP").step(at: Date(timeIntervalSince1970: 59))   // 1
    /// ```
    public func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code an app shows at `date`.
    public func code(at date: Date) -> String {
        code(step: step(at: date))
    }

    /// The code of time step `step` (RFC 4226's counter): ``digits`` decimal digits, with
    /// leading zeros.
    public func code(step: Int64) -> String {
        let counter = withUnsafeBytes(of: UInt64(bitPattern: step).bigEndian) { Array($0) }
        let mac: [UInt8] =
            switch algorithm {
            case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: key)))
            case .sha256: Array(HMAC<SHA256>.authenticationCode(for: counter, using: SymmetricKey(data: key)))
            case .sha512: Array(HMAC<SHA512>.authenticationCode(for: counter, using: SymmetricKey(data: key)))
            }
        // Dynamic truncation (RFC 4226 §5.3): 31 bits from the offset the last nibble names.
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = mac[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let number = String(binary % modulus)
        return String(repeating: "0", count: digits - number.count) + number
    }

    /// The step within `window` steps of `date`'s whose code is `code`, nil when none is.
    ///
    /// ```swift
    /// let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP")
    /// totp.step(of: totp.code(at: now - 30), near: now)   // totp.step(at: now) - 1
    /// ```
    public func step(of code: String, near date: Date, window: Int64 = 1) -> Int64? {
        let current = step(at: date)
        return (current - window...current + window).first { self.code(step: $0) == code }
    }
}
