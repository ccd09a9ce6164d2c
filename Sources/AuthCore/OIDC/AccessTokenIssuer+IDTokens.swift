import Foundation
import JOSE

extension AccessTokenIssuer {
    /// Signs `claims` as an ID token (OpenID Connect Core §2) with the current key of
    /// `algorithm`: its header says `typ: JWT`, never the access tokens' `at+jwt`, so an ID
    /// token presented as an access token is refused (RFC 9068 §4).
    ///
    /// ```swift
    /// let idToken = try issuer.signIDToken(claims, algorithm: .rs256)
    /// ```
    /// - Throws: `service_unavailable` when no key of `algorithm` is loaded yet.
    public func signIDToken(_ claims: IDTokenClaims, algorithm: SigningAlgorithm) throws -> String {
        guard let signer = idTokenSigner(algorithm) else {
            throw AuthError.serviceUnavailable("No \(algorithm.rawValue) signing key is loaded yet.")
        }
        let header = try JSONEncoder().encode(IDTokenHeader(alg: algorithm.rawValue, kid: signer.kid))
        return try CompactJWS.serialize(header: header, payload: try JSONEncoder().encode(claims)) { try signer.sign($0) }
    }

    /// The claims of `token` when it is an ID token authd signed with one of its published
    /// keys (`typ: JWT`, the key's own algorithm) for its issuer; its expiry is not checked: a
    /// logout's `id_token_hint` may have expired (RP-Initiated Logout 1.0 §2).
    public func idTokenHint(_ token: String) -> IDTokenClaims? {
        guard token.utf8.count <= 8192 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(HintHeader.self, from: headerData), header.typ == "JWT",
            let verifier = idTokenVerifier(kid: header.kid), verifier.algorithm.rawValue == header.alg,
            verifier.verifies(signature, of: Data("\(parts[0]).\(parts[1])".utf8)),
            let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: payload), claims.iss == issuer
        else { return nil }
        return claims
    }

    private struct HintHeader: Decodable {
        let alg: String
        let kid: String
        let typ: String?
    }

    private struct IDTokenHeader: Encodable {
        let alg: String
        let kid: String
        let typ = "JWT"
    }
}
