import Foundation
import JOSE

/// What the WebAuthn JSON types share: base64url members (WebAuthn §5.1.8, §5.1.9:
/// unpadded, padding accepted) with a length limit, and decoding errors turned into
/// malformed ``WebAuthnError``s that name the member without quoting the input.
///
/// ```swift
/// let response = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: body)
/// ```
public enum WebAuthnJSON {
    /// The longest base64url member accepted, in characters (48 KiB of bytes): far above
    /// an attestation object with an RSA-4096 key and a certificate chain.
    public static let maximumBinaryLength = 65_536
    /// The longest text member accepted (origins, names, transports), in UTF-8 bytes.
    public static let maximumTextLength = 2_048
    /// The largest JSON document ``decode(_:from:)`` reads.
    public static let maximumDocumentLength = 262_144

    static let notBase64URL = "is not base64url"
    static let tooLong = "is too long"

    /// Decodes `type` from `json`.
    ///
    /// ```swift
    /// let response = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(body.utf8))
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` naming the member at fault, for a document
    ///   over ``maximumDocumentLength``, not JSON, or not of the type's shape.
    public static func decode<Value: Decodable>(_ type: Value.Type, from json: Data) throws(WebAuthnError) -> Value {
        guard json.count <= maximumDocumentLength else {
            throw .malformed("credential", "is larger than \(maximumDocumentLength) bytes")
        }
        do {
            return try JSONDecoder().decode(type, from: json)
        } catch let error as DecodingError {
            throw .malformed("credential", reason(error))
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw .malformed("credential", "is not JSON")
        }
    }

    /// A decoding error as "MEMBER is missing" and the like, never quoting the input.
    static func reason(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) is null"
        case .typeMismatch(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "is not valid JSON" }
            let known = [notBase64URL, tooLong]
            return "\(path(context.codingPath)) \(known.contains(context.debugDescription) ? context.debugDescription : "is invalid")"
        @unknown default:
            return "could not be read"
        }
    }

    /// `response.transports[0]` for a coding path (the keys are the types' own).
    private static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "value" : String(text.prefix(200))
    }
}

extension KeyedDecodingContainer {
    /// A base64url member's bytes.
    func decodeBase64URL(forKey key: Key) throws -> Data {
        let text = try decode(String.self, forKey: key)
        guard text.utf8.count <= WebAuthnJSON.maximumBinaryLength else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: WebAuthnJSON.tooLong)
        }
        guard let bytes = Base64URL.decode(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: WebAuthnJSON.notBase64URL)
        }
        return bytes
    }

    /// A base64url member's bytes; nil when absent or null.
    func decodeBase64URLIfPresent(forKey key: Key) throws -> Data? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeBase64URL(forKey: key)
    }

    /// A text member, at most ``WebAuthnJSON/maximumTextLength`` bytes.
    func decodeText(forKey key: Key) throws -> String {
        let text = try decode(String.self, forKey: key)
        guard text.utf8.count <= WebAuthnJSON.maximumTextLength else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: WebAuthnJSON.tooLong)
        }
        return text
    }

    /// A text member; nil when absent or null.
    func decodeTextIfPresent(forKey key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeText(forKey: key)
    }

    /// A list of text members (transports, hints), at most 32 of at most 2 KiB each.
    func decodeTextListIfPresent(forKey key: Key) throws -> [String]? {
        guard let list = try decodeIfPresent([String].self, forKey: key) else { return nil }
        guard list.count <= 32, list.allSatisfy({ $0.utf8.count <= WebAuthnJSON.maximumTextLength }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: WebAuthnJSON.tooLong)
        }
        return list
    }
}

extension KeyedEncodingContainer {
    /// Writes `bytes` as unpadded base64url.
    mutating func encodeBase64URL(_ bytes: Data, forKey key: Key) throws {
        try encode(Base64URL.encode(bytes), forKey: key)
    }

    /// Writes `bytes` as unpadded base64url when present.
    mutating func encodeBase64URLIfPresent(_ bytes: Data?, forKey key: Key) throws {
        if let bytes { try encodeBase64URL(bytes, forKey: key) }
    }
}
