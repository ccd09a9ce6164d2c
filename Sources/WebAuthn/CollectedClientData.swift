import Foundation
import JOSE

/// The client data (WebAuthn §5.8.1), parsed from `clientDataJSON`: the ceremony type, the
/// challenge, the calling origin, and for a call from a cross-origin iframe `crossOrigin`
/// and the top-level origin. Other members (`extraData`, future ones) are ignored.
///
/// ```swift
/// let client = try CollectedClientData(json: Data(#"{"type":"webauthn.get","challenge":"AQID","origin":"https://example.org"}"#.utf8))
/// client.challenge   // Data([1, 2, 3])
/// ```
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get` (as sent; the verifier compares it).
    public let type: String
    /// The challenge, decoded from base64url.
    public let challenge: Data
    /// The origin of the page that called WebAuthn, e.g. `https://example.org`.
    public let origin: String
    /// Whether the call came from an iframe not same-origin with its ancestors.
    public let crossOrigin: Bool
    /// The top-level page's origin, sent for cross-origin calls.
    public let topOrigin: String?

    /// The member of the JSON.
    private struct Wire: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
    }

    /// Parses `clientDataJSON`.
    ///
    /// ```swift
    /// try CollectedClientData(json: response.response.clientDataJSON).type   // "webauthn.create"
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` (field `clientDataJSON`) when it is not a JSON
    ///   object with string `type`, `challenge` (base64url) and `origin`.
    public init(json: Data) throws(WebAuthnError) {
        let field = "clientDataJSON"
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: json)
        } catch let error as DecodingError {
            throw .malformed(field, WebAuthnJSON.reason(error))
        } catch {
            throw .malformed(field, "is not JSON")
        }
        guard let challenge = Base64URL.decode(wire.challenge) else {
            throw .malformed("\(field).challenge", "is not base64url")
        }
        type = wire.type
        self.challenge = challenge
        origin = wire.origin
        crossOrigin = wire.crossOrigin ?? false
        topOrigin = wire.topOrigin
    }
}
