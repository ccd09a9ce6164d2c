import AuthCore
import AuthServer
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift resource server of docs/03-http-api.md (section "Relying parties"), run against a live authd:
/// jwt-kit finds authd's keys through the metadata and accepts its tokens for the audience,
/// and refuses a token for another audience or of another issuer name.
@Suite struct JWTKitResourceServerTests {
    // From docs/03-http-api.md, as written there.
    struct AuthdClaims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var clientID: String

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp
            case clientID = "client_id"
        }

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
            try aud.verifyIntendedAudience(includes: "https://orders.example.com")
        }
    }

    struct Metadata: Decodable {
        let issuer: String
        let jwksURI: String
        enum CodingKeys: String, CodingKey {
            case issuer
            case jwksURI = "jwks_uri"
        }
    }

    static func authdKeys(at authd: URL) async throws -> (keys: JWTKeyCollection, issuer: String) {
        let metadataURL = authd.appending(path: ".well-known/oauth-authorization-server")
        let metadata = try JSONDecoder().decode(Metadata.self, from: try await URLSession.shared.data(from: metadataURL).0)
        guard let jwksURL = URL(string: metadata.jwksURI) else { throw URLError(.badURL) }
        let jwks = try await URLSession.shared.data(from: jwksURL).0
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: String(decoding: jwks, as: UTF8.self))
        return (keys, metadata.issuer)
    }

    static func verified(_ accessToken: String, keys: JWTKeyCollection, issuer: String) async throws -> AuthdClaims {
        let claims = try await keys.verify(accessToken, as: AuthdClaims.self)
        guard claims.iss.value == issuer else { throw JWTError.claimVerificationFailure(failedClaim: claims.iss, reason: "not authd's") }
        return claims
    }
    // End of the code of docs/03-http-api.md.

    @Test func aSwiftServiceValidatesTokensWithJWTKitThroughTheMetadata() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.audiences = ["https://orders.example.com", "https://billing.example.com"]
        fixture.configuration.port = 0
        let user = try await fixture.addUser("uma", password: "correct horse battery staple")
        try await fixture.application().test(.live) { client in
            let tokens = try await client.login("uma", "correct horse battery staple").json()
            let access = try #require(tokens["access_token"] as? String)
            let port = try #require(client.port)
            let authd = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let (keys, issuer) = try await Self.authdKeys(at: authd)
            #expect(issuer == "authd")
            let claims = try await Self.verified(access, keys: keys, issuer: issuer)
            #expect(claims.sub.value == user.id.uuidString.lowercased())
            #expect(claims.clientID == "authd")
            // The same keys, another issuer's name: refused.
            await #expect(throws: JWTError.self) { try await Self.verified(access, keys: keys, issuer: "https://elsewhere.example") }
        }
        // A token for other audiences only is refused by the claims' own check.
        fixture.configuration.audiences = ["https://billing.example.com"]
        try await fixture.application().test(.live) { client in
            let access = try #require(try await client.login("uma", "correct horse battery staple").json()["access_token"] as? String)
            let port = try #require(client.port)
            let (keys, issuer) = try await Self.authdKeys(at: try #require(URL(string: "http://127.0.0.1:\(port)")))
            await #expect(throws: JWTError.self) { try await Self.verified(access, keys: keys, issuer: issuer) }
        }
    }
}
