import AuthCore
import Foundation
import JOSE
import WebAuthn

/// The body of `POST /webauthn/register`: `{"credential": <RegistrationResponseJSON>, "name"?}`,
/// the credential as the browser's `PublicKeyCredential.toJSON()` gives it (camelCase,
/// base64url).
///
/// ```swift
/// let body = try await JSONRequestBody.decode(PasskeyRegistrationRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct PasskeyRegistrationRequest: RequestBody {
    /// The authenticator's answer to the registration options.
    public let credential: RegistrationResponseJSON
    /// What the owner calls the passkey (at most 64 characters; `passkey` when absent).
    public let name: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case credential, name
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        credential = try container.decode(RegistrationResponseJSON.self, forKey: .credential)
        name = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .name)
    }
}

/// The body of `POST /webauthn/login/options`: none, `{}`, or `{"username"}`.
///
/// ```swift
/// let body = try await JSONRequestBody.decodeOrEmpty(PasskeyLoginOptionsRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct PasskeyLoginOptionsRequest: RequestBody {
    /// The account whose passkeys may answer; absent for a discoverable login.
    public let username: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case username
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .username)
    }
}

/// The body of `POST /webauthn/login`: `{"credential": <AuthenticationResponseJSON>}`.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(PasskeyLoginRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct PasskeyLoginRequest: RequestBody {
    /// The authenticator's answer to the login options.
    public let credential: AuthenticationResponseJSON

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case credential
    }
}

/// The body the sign-in page's script posts to `POST /authorize/passkey`:
/// `{"csrf", "credential": <AuthenticationResponseJSON>}`, the page's anti-forgery token
/// with the assertion.
public struct PagePasskeyRequest: RequestBody {
    public let csrf: String
    public let credential: AuthenticationResponseJSON

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case csrf, credential
    }
}

/// A passkey as its owner sees it: `{"id", "name", "created_at", "last_used_at",
/// "transports", "backed_up"}` (the id base64url, as in the WebAuthn JSON).
struct PasskeyResponse: Encodable {
    let id: String
    let name: String
    let createdAt: String
    let lastUsedAt: String?
    let transports: [String]
    let backedUp: Bool

    init(_ passkey: Passkey) {
        id = Base64URL.encode(passkey.id)
        name = passkey.name
        createdAt = passkey.createdAt.formatted(.iso8601)
        lastUsedAt = passkey.lastUsedAt?.formatted(.iso8601)
        transports = passkey.transports
        backedUp = passkey.backedUp
    }

    enum CodingKeys: String, CodingKey {
        case id, name, transports
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case backedUp = "backed_up"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(transports, forKey: .transports)
        try container.encode(backedUp, forKey: .backedUp)
    }
}
