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

    private struct IDTokenHeader: Encodable {
        let alg: String
        let kid: String
        let typ = "JWT"
    }
}
