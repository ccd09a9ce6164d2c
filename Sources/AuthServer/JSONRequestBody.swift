import AuthCore
import Foundation
import Hummingbird
import NIOCore

/// A request body that must be a JSON object, read with bounded memory, with one precise
/// `invalid_request` message per problem.
///
/// Checks, in order: the media type (415), the size (413, from `Content-Length` before
/// reading and while reading), JSON syntax, that the value is an object, and that it has no
/// member besides `fields` (400): a field the route does not know is refused rather than
/// ignored, as the contracts' stub refuses it.
///
/// ```swift
/// let body = try await JSONRequestBody(request: request, limit: 64 * 1024, fields: ["username", "password"])
/// let username = try body.string("username")
/// ```
public struct JSONRequestBody: Sendable {
    private let object: [String: JSONField]

    /// Reads and parses `request`'s body.
    public init(request: Request, limit: Int, fields: Set<String>) async throws {
        guard Self.isJSON(request.headers[.contentType]) else { throw HTTPRequestError.unsupportedMediaType }
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw HTTPRequestError.requestTooLarge(limit: limit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw HTTPRequestError.requestTooLarge(limit: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw HTTPRequestError.requestTooLarge(limit: limit)
        }
        do {
            self.object = try JSONDecoder().decode(TopLevelObject.self, from: Data(buffer: buffer)).fields
        } catch is NotAnObject {
            throw AuthError.invalidRequest("The request body must be a JSON object.")
        } catch {
            throw AuthError.invalidRequest("The request body is not valid JSON.")
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw AuthError.invalidRequest("\(unknown) is not a field of this request")
        }
    }

    /// The non-empty string field `name`.
    /// - Throws: `invalid_request` naming the field when it is missing, null, not a string or empty.
    public func string(_ name: String) throws -> String {
        switch object[name] {
        case nil: throw AuthError.invalidRequest("\(name) is required")
        case .null: throw AuthError.invalidRequest("\(name) must not be null")
        case .other(let type): throw AuthError.invalidRequest("\(name) must be a string, not \(type)")
        case .string(let value):
            guard !value.isEmpty else { throw AuthError.invalidRequest("\(name) must not be empty") }
            return value
        }
    }

    /// Whether a `Content-Type` value is `application/json` or a `+json` type.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// The kind of one top-level field; nested values are not decoded.
    private enum JSONField: Sendable, Decodable {
        case string(String)
        case null
        case other(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let string = try? container.decode(String.self) {
                self = .string(string)
            } else if (try? container.decode(Bool.self)) != nil {
                self = .other("a boolean")
            } else if (try? container.decode(Double.self)) != nil {
                self = .other("a number")
            } else if (try? decoder.unkeyedContainer()) != nil {
                self = .other("an array")
            } else {
                self = .other("an object")
            }
        }
    }

    private struct NotAnObject: Error {}

    private struct TopLevelObject: Decodable {
        let fields: [String: JSONField]

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: AnyKey.self) else { throw NotAnObject() }
            var fields: [String: JSONField] = [:]
            for key in container.allKeys {
                fields[key.stringValue] = try container.decode(JSONField.self, forKey: key)
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
