import AuthCore
import Foundation
import Testing

/// A discovery document is taken only for the issuer it was fetched for, with endpoints
/// authd may call (https, or http on loopback) and a signing algorithm authd verifies.
@Suite struct ProviderMetadataTests {
    static func document(_ issuer: String, jwks: String? = nil, algorithms: [String] = ["RS256"]) -> Data {
        let object: [String: Any] = [
            "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
            "jwks_uri": jwks ?? issuer + "/jwks", "id_token_signing_alg_values_supported": algorithms,
        ]
        return try! JSONSerialization.data(withJSONObject: object)
    }

    @Test func aGoodDocumentIsTaken() throws {
        let metadata = try ProviderMetadata.parse(
            Self.document("https://accounts.example.com"), expectedIssuer: "https://accounts.example.com")
        #expect(metadata.jwksURI == "https://accounts.example.com/jwks")
        #expect(
            try ProviderMetadata.parse(Self.document("http://127.0.0.1:9400"), expectedIssuer: "http://127.0.0.1:9400").issuer
                == "http://127.0.0.1:9400")
        #expect(
            try ProviderMetadata.discoveryURL(of: "https://a.example/tenant/").absoluteString
                == "https://a.example/tenant/.well-known/openid-configuration")
    }

    @Test(arguments: [
        ("another issuer", document("https://evil.example"), "names the issuer"),
        ("plain http off loopback", document("http://accounts.example.com"), "must be an https URL"),
        (
            "keys over plain http", document("https://accounts.example.com", jwks: "http://keys.example.com/jwks"),
            "jwks_uri must be an https URL"
        ),
        ("only HS256", document("https://accounts.example.com", algorithms: ["HS256", "none"]), "none of RS256, ES256 and EdDSA"),
        ("not JSON", Data("<html>".utf8), "not JSON"),
    ])
    func aBadDocumentIsRefusedSayingWhy(name: String, body: Data, says: String) {
        let expected = name == "plain http off loopback" ? "http://accounts.example.com" : "https://accounts.example.com"
        #expect(throws: FederationError.self, "\(name)") { try ProviderMetadata.parse(body, expectedIssuer: expected) }
        do {
            _ = try ProviderMetadata.parse(body, expectedIssuer: expected)
        } catch {
            #expect(error.description.contains(says), "\(name): \(error)")
        }
    }

    @Test func cacheControlSaysHowLongKeysAreKept() {
        #expect(
            ProviderResponse(status: 200, headers: [("Cache-Control", "public, max-age=21600, must-revalidate")], body: Data()).maxAge
                == 21_600)
        #expect(ProviderResponse(status: 200, headers: [("cache-control", "no-store")], body: Data()).maxAge == 0)
        #expect(ProviderResponse(status: 200, body: Data()).maxAge == nil)
    }

    @Test func onlySigningKeysOfTheThreeAlgorithmsAreTaken() throws {
        let set = #"""
            {"keys": [
              {"kty": "oct", "k": "c2VjcmV0", "alg": "HS256", "kid": "h"},
              {"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA", "kid": "p384"},
              {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed", "use": "enc"},
              {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed-sig", "alg": "ES256"},
              {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed-ok"}
            ]}
            """#
        let keys = try #require(ProviderPublicKey.keys(in: Data(set.utf8)))
        #expect(keys.map(\.kid) == ["ed-ok"])
        #expect(keys.first?.algorithm == .edDSA)
        #expect(ProviderPublicKey.keys(in: Data("[]".utf8)) == nil)
    }

    @Test func googlesTokensMayNameItsIssuerWithoutTheScheme() throws {
        let metadata = try ProviderMetadata.parse(
            Self.document("https://accounts.google.com"), expectedIssuer: "https://accounts.google.com")
        func provider(_ kind: IdentityProvider.Kind) -> IdentityProvider {
            IdentityProvider(
                name: "p", kind: kind, issuer: "https://accounts.google.com", clientIDs: ["a"], scopes: ["openid"], createsAccounts: false,
                metadata: metadata, createdAt: Date())
        }
        #expect(provider(.google).acceptedIssuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(provider(.oidc).acceptedIssuers == ["https://accounts.google.com"])
        #expect(IdentityProvider.Kind.apple.defaultIssuer == "https://appleid.apple.com")
    }
}
