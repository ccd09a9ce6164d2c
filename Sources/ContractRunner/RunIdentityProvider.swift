import ContractKit
import ContractStub
import Foundation

/// The OpenID provider a `contract verify` run plays for the service under test: its
/// ``DeliveryReceiver`` answers `GET /.well-known/openid-configuration` (issuer: the
/// receiver's URL, `{{delivery_url}}`) and `GET /jwks`, and the run's requests carry ID
/// tokens it signs (`{ match: jwt, signed: true }`): EdDSA under a key of the run's, `iss` its
/// URL, `iat` now, `exp` in ten minutes and a fresh `jti` where the contract's claims allow
/// them, the contract's claims otherwise. A provider state adds it to the service as an
/// upstream provider (authd's: `authd provider add … --issuer {{delivery_url}}`).
///
/// ```swift
/// let provider = RunIdentityProvider(issuer: "http://127.0.0.1:4000")
/// let token = try provider.jwt(claims: ["aud": Matcher(.literal(.string("notes-app")))], at: "$.id_token")
/// ```
public struct RunIdentityProvider: TokenMinter {
    /// Its issuer identifier: the receiver's URL.
    public let issuer: String
    private let signer = StubSigner()

    /// A provider with a fresh key, named `issuer`.
    public init(issuer: String) {
        self.issuer = issuer
    }

    public func jwt(claims: [String: Matcher], at path: String) throws -> JSONValue {
        var token = signer.claims(subject: "contract-user", lifetime: 600)
        token["iss"] = .string(issuer)
        for (name, claim) in claims.sorted(by: { $0.key < $1.key }) {
            if let standard = token[name], claim.mismatches(in: standard).isEmpty { continue }
            token[name] = try claim.sampleValue(at: "\(path).\(name)")
        }
        return .string(signer.token(claims: token))
    }

    public var jwks: JSONValue { signer.jwks }

    /// Its discovery document (OpenID Connect Discovery §3): the endpoints a relying party
    /// needs to verify its ID tokens. It authorizes no one in a browser: the authorization
    /// endpoint is named because the document must name one.
    public var discoveryDocument: JSONValue {
        .object([
            "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"), "jwks_uri": .string(issuer + "/jwks"),
            "response_types_supported": .array([.string("code")]), "subject_types_supported": .array([.string("public")]),
            "id_token_signing_alg_values_supported": .array([.string("EdDSA")]),
        ])
    }
}
