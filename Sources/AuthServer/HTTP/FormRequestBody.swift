import AuthCore
import Foundation
import Hummingbird
import WebForms

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

    /// Reads and decodes `request`'s body.
    /// - Throws: 415 for another media type, 413 beyond
    ///   `limit`, `invalid_request` for a parameter sent twice or not decodable.
    public static func read(from request: Request, limit: Int) async throws -> FormRequestBody {
        guard FormEncoding.isForm(contentType: request.headers[.contentType]) else { throw HTTPRequestError.notAForm }
        return try FormRequestBody(Data(buffer: try await JSONRequestBody.collect(request, limit: limit)))
    }

    /// Decodes a body (``WebForms/FormEncoding``).
    /// - Throws: `invalid_request` for a body that is not valid UTF-8 and percent-encoding, or
    ///   a parameter sent twice.
    public init(_ body: Data) throws {
        guard let decoded = FormEncoding.decode(body) else {
            throw AuthError.invalidRequest("The form body is not valid UTF-8 and percent-encoding.")
        }
        var fields: [String: String] = [:]
        // Sent without a value: as if omitted.
        for (name, value) in decoded where !value.isEmpty {
            guard fields.updateValue(value, forKey: name) == nil else {
                throw AuthError.invalidRequest("\(Self.shown(name)) must not be sent more than once")
            }
        }
        self.fields = fields
    }

    /// A form without parameters.
    public static let empty = FormRequestBody(fields: [:])

    private init(fields: [String: String]) {
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

    /// A parameter's name as an error shows it: at most 64 characters, printable.
    private static func shown(_ name: String) -> String {
        let printable = name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        return String(String.UnicodeScalarView(printable.prefix(64)))
    }
}
