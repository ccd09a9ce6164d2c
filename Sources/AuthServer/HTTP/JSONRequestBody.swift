import AuthCore
import Foundation
import Hummingbird
import NIOCore
import WebForms

/// A JSON request body, read with bounded memory and decoded strictly into a
/// ``RequestBody`` type, with one precise `invalid_request` message per problem.
///
/// Checks, in order: the media type (415), the size (413, from `Content-Length` before
/// reading and while reading), JSON syntax, that the value is an object, that it has no
/// member the type does not declare (a field the route does not know is refused rather than
/// ignored, as the contracts' stub refuses it), then each field in declaration order
/// (missing, null, wrong type, empty).
///
/// ```swift
/// let body = try await JSONRequestBody.decode(LoginRequest.self, from: request, limit: 64 * 1024)
/// body.username.value   // "alice"
/// ```
public enum JSONRequestBody {
    /// Reads `request`'s body and decodes it as `Body`.
    public static func decode<Body: RequestBody>(_ type: Body.Type, from request: Request, limit: Int) async throws -> Body {
        guard isJSON(request.headers[.contentType]) else { throw HTTPRequestError.unsupportedMediaType }
        return try decode(type, from: Data(buffer: try await collect(request, limit: limit)))
    }

    /// Reads the body of a route that takes no fields: none at all (whatever its
    /// `Content-Type`), or a JSON object without members (`{}`); anything else is refused
    /// as ``decode(_:from:limit:)`` refuses it.
    ///
    /// ```swift
    /// try await JSONRequestBody.expectNoFields(in: request, limit: 64 * 1024)
    /// ```
    public static func expectNoFields(in request: Request, limit: Int) async throws {
        _ = try await decodeOrEmpty(NoFields.self, from: request, limit: limit)
    }

    /// Reads the body of a route whose fields are all optional: none at all (whatever its
    /// `Content-Type`) is taken as `{}`; anything else is decoded as ``decode(_:from:limit:)`` does.
    ///
    /// ```swift
    /// let body = try await JSONRequestBody.decodeOrEmpty(PasskeyLoginOptionsRequest.self, from: request, limit: 64 * 1024)
    /// ```
    public static func decodeOrEmpty<Body: RequestBody>(_ type: Body.Type, from request: Request, limit: Int) async throws -> Body {
        let buffer = try await collect(request, limit: limit)
        guard buffer.readableBytes > 0 else { return try decode(type, from: Data("{}".utf8)) }
        guard isJSON(request.headers[.contentType]) else { throw HTTPRequestError.unsupportedMediaType }
        return try decode(type, from: Data(buffer: buffer))
    }

    /// The body, at most `limit` bytes (413 beyond, from `Content-Length` before reading),
    /// arrived whole within the request's ``BodyDeadline`` (408 after): what every body
    /// reader here reads first (``FormRequestBody`` too).
    static func collect(_ request: Request, limit: Int) async throws -> ByteBuffer {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw HTTPRequestError.requestTooLarge(limit: limit)
        }
        do {
            return try await BodyDeadline.within { try await request.body.collect(upTo: limit) }
        } catch is NIOTooManyBytesError {
            throw HTTPRequestError.requestTooLarge(limit: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw HTTPRequestError.requestTooLarge(limit: limit)
        }
    }

    /// A body without fields.
    private struct NoFields: RequestBody {
        enum CodingKeys: CodingKey, CaseIterable {
            static var allCases: [CodingKeys] { [] }
            var stringValue: String { switch self {} }
            var intValue: Int? { nil }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {}
    }

    /// Decodes `data` as `Body`, with the checks above after the media type and size.
    public static func decode<Body: RequestBody>(_ type: Body.Type, from data: Data) throws -> Body {
        let fields: [String: JSONKind]
        do {
            fields = try JSONDecoder().decode(TopLevelObject.self, from: data).fields
        } catch is NotAnObject {
            throw AuthError.invalidRequest("The request body must be a JSON object.")
        } catch {
            throw AuthError.invalidRequest("The request body is not valid JSON.")
        }
        let known = Set(Body.CodingKeys.allCases.map(\.stringValue))
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw AuthError.invalidRequest("\(unknown) is not a field of this request")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: data)
        } catch let error as DecodingError {
            throw AuthError.invalidRequest(message(for: error, fields: fields))
        }
    }

    /// The `invalid_request` text of a field that did not decode, naming the field.
    private static func message(for error: DecodingError, fields: [String: JSONKind]) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return context.codingPath.isEmpty ? "\(key.stringValue) is required" : "\(name(context)).\(key.stringValue) is required"
        case .valueNotFound(_, let context):
            return "\(name(context)) must not be null"
        case .typeMismatch(let expected, let context):
            let field = name(context)
            let wanted = expected == String.self || expected == NonEmptyString.self ? "a string" : "\(expected)"
            return "\(field) must be \(wanted), not \(fields[field]?.description ?? "another type")"
        case .dataCorrupted(let context):
            return "\(name(context)) \(context.debugDescription)"
        @unknown default:
            return "The request body could not be read."
        }
    }

    /// The field at fault: `token`, or a path into an object field (`credential.response.clientDataJSON`).
    private static func name(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty
            ? "body" : context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// Whether a `Content-Type` value is `application/json` or a `+json` type.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let mediaType = FormEncoding.mediaType(of: contentType) else { return false }
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// The JSON type of one top-level field, for messages; nested values are not decoded.
    private enum JSONKind: Sendable, Decodable, CustomStringConvertible {
        case string, null, boolean, number, array, object

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if (try? container.decode(String.self)) != nil {
                self = .string
            } else if (try? container.decode(Bool.self)) != nil {
                self = .boolean
            } else if (try? container.decode(Double.self)) != nil {
                self = .number
            } else if (try? decoder.unkeyedContainer()) != nil {
                self = .array
            } else {
                self = .object
            }
        }

        var description: String {
            switch self {
            case .string: "a string"
            case .null: "null"
            case .boolean: "a boolean"
            case .number: "a number"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    private struct NotAnObject: Error {}

    private struct TopLevelObject: Decodable {
        let fields: [String: JSONKind]

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: AnyKey.self) else { throw NotAnObject() }
            var fields: [String: JSONKind] = [:]
            for key in container.allKeys {
                fields[key.stringValue] = try container.decode(JSONKind.self, forKey: key)
            }
            self.fields = fields
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }
}

/// A JSON request body type: `Decodable` with its fields as `CodingKeys`, so
/// ``JSONRequestBody`` can refuse members it does not declare.
///
/// ```swift
/// struct LoginRequest: RequestBody {
///     let username: NonEmptyString
///     let password: NonEmptyString
///     enum CodingKeys: String, CodingKey, CaseIterable { case username, password }
/// }
/// ```
public protocol RequestBody: Decodable, Sendable {
    /// The body's fields, in the order they are checked.
    associatedtype CodingKeys: CodingKey & CaseIterable
}

/// A string field that must not be empty (`"… must not be empty"` otherwise).
///
/// ```swift
/// let body = try JSONRequestBody.decode(RefreshTokenRequest.self, from: Data(#"{"refresh_token":"abc"}"#.utf8))
/// body.refreshToken.value   // "abc"
/// ```
public struct NonEmptyString: Decodable, Sendable, Equatable {
    /// The text.
    public let value: String

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard !value.isEmpty else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must not be empty")
        }
        self.value = value
    }
}

extension KeyedDecodingContainer {
    /// An optional field: nil when the key is absent, but a `null` is refused ("… must not
    /// be null"), as the schema says the field is a string when present.
    ///
    /// ```swift
    /// email = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .email)
    /// ```
    public func decodeUnlessAbsent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        contains(key) ? try decode(type, forKey: key) : nil
    }
}
