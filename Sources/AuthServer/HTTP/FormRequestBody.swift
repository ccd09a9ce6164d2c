import AuthCore
import Foundation
import Hummingbird

/// An `application/x-www-form-urlencoded` request body, as the OAuth endpoints take them
/// (RFC 6749 §3.2, RFC 7662 §2.1, RFC 7009 §2.1): read with the same size limit as JSON bodies,
/// decoded (`+` is a space, `%XX` a byte, UTF-8), a parameter sent twice refused, one sent
/// without a value taken as omitted and unknown ones ignored (RFC 6749 §3.1).
///
/// ```swift
/// let form = try await FormRequestBody.read(from: request, limit: 64 * 1024)
/// let token = try form.required("token")
/// ```
public struct FormRequestBody: Sendable, Equatable {
    /// The parameters sent with a value.
    public let fields: [String: String]

    /// The form's media type.
    public static let mediaType = "application/x-www-form-urlencoded"

    /// Reads and decodes `request`'s body.
    /// - Throws: 415 for another media type (or a charset other than UTF-8), 413 beyond
    ///   `limit`, `invalid_request` for a parameter sent twice or not decodable.
    public static func read(from request: Request, limit: Int) async throws -> FormRequestBody {
        guard isForm(request.headers[.contentType]) else { throw HTTPRequestError.notAForm }
        return try FormRequestBody(Data(buffer: try await JSONRequestBody.collect(request, limit: limit)))
    }

    /// Decodes a body.
    /// - Throws: `invalid_request` naming the parameter at fault.
    public init(_ body: Data) throws {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { throw AuthError.invalidRequest("A form parameter's name is not valid UTF-8 or percent-encoding.") }
            guard let value = parts.count > 1 ? Self.decode(parts[1]) : "" else {
                throw AuthError.invalidRequest("\(Self.shown(name)) is not valid UTF-8 or percent-encoding")
            }
            // Sent without a value: as if omitted.
            guard !value.isEmpty else { continue }
            guard fields.updateValue(value, forKey: name) == nil else {
                throw AuthError.invalidRequest("\(Self.shown(name)) must not be sent more than once")
            }
        }
        self.fields = fields
    }

    /// The parameter's value, nil when absent.
    public subscript(name: String) -> String? { fields[name] }

    /// The parameter's value.
    /// - Throws: `invalid_request` ("token is required") when it is absent or empty.
    public func required(_ name: String) throws -> String {
        guard let value = fields[name] else { throw AuthError.invalidRequest("\(name) is required") }
        return value
    }

    /// Whether `contentType` is the form media type, with at most a UTF-8 charset.
    static func isForm(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == mediaType else { return false }
        return parts.dropFirst().allSatisfy { !$0.hasPrefix("charset=") || ["charset=utf-8", "charset=\"utf-8\""].contains($0) }
    }

    /// `+` as a space, `%XX` as a byte, the whole as UTF-8; nil when not decodable.
    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        let bytes = Array(bytes)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                decoded.append(high << 4 | low)
                index += 2
            case let byte:
                decoded.append(byte)
            }
            index += 1
        }
        return String(validating: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A parameter's name as an error shows it: at most 64 characters, printable.
    private static func shown(_ name: String) -> String {
        let printable = name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        return String(String.UnicodeScalarView(printable.prefix(64)))
    }
}
