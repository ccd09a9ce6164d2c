import Foundation

/// Why a provider could not be added or used: its discovery document or keys were wrong or
/// out of reach. Its text names the provider's URLs and fields, never a secret.
///
/// ```swift
/// catch let error as FederationError { print(error) }   // "issuer must be an https URL …"
/// ```
public struct FederationError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case discovery
        case unreachable
    }

    private let kind: Kind
    /// A one-line explanation.
    public let description: String

    /// The discovery document (or an option given for it) is not usable.
    public static func discovery(_ description: String) -> FederationError {
        FederationError(kind: .discovery, description: description)
    }

    /// The provider did not answer, or not with what was asked (`what`: its discovery
    /// document, its keys, its token endpoint).
    public static func unreachable(_ what: String, _ reason: String) -> FederationError {
        FederationError(kind: .unreachable, description: "\(what) could not be fetched: \(reason)")
    }

    /// Whether the provider was out of reach (rather than wrong).
    public var isUnreachable: Bool { kind == .unreachable }
}

/// Why an ID token was refused, as the audit log's `detail` names it.
///
/// ```swift
/// IDTokenRefusal.audience.rawValue   // "id_token_audience"
/// ```
public enum IDTokenRefusal: String, Error, Sendable, CaseIterable {
    /// Not a JWS with a JSON header and claims.
    case malformed = "id_token_malformed"
    /// `alg` is not RS256, ES256 or EdDSA (`none`, an HMAC), or not the key's.
    case algorithm = "id_token_algorithm"
    /// No published key has its `kid` (after one fetch of the keys again).
    case unknownKey = "id_token_unknown_key"
    /// The signature does not verify.
    case signature = "id_token_signature"
    /// `iss` is not the provider's.
    case issuer = "id_token_issuer"
    /// `aud` names none of the provider's client ids.
    case audience = "id_token_audience"
    /// Several audiences, and `azp` is not one of the provider's client ids (OIDC Core §3.1.3.7).
    case authorizedParty = "id_token_azp"
    /// `exp` has passed (or is missing).
    case expired = "id_token_expired"
    /// `iat` is in the future (or missing).
    case issuedInFuture = "id_token_iat"
    /// `nonce` is not the one expected (or one was expected and none came).
    case nonce = "id_token_nonce"
    /// It was used already.
    case replayed = "id_token_replayed"
    /// `sub` is missing or empty.
    case subject = "id_token_subject"
}
