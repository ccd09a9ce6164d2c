import Crypto
import Foundation
import _CryptoExtras

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A browser sign-in begun (OpenID Connect's authorization code flow with PKCE, as RFC 8252
/// has native apps do it): what the app keeps until the browser comes back, to check the
/// answer against. Keep it in memory, or in the app's own storage across a relaunch.
public struct PendingSignIn: Sendable, Codable, Equatable {
    /// The URL to open in the system browser (`ASWebAuthenticationSession`, a custom tab).
    public let url: URL
    /// The request's `state`, which the answer must carry back (RFC 6749 §10.12).
    public let state: String
    /// The ID token's expected `nonce` (OpenID Connect Core §3.1.2.1).
    public let nonce: String
    /// The PKCE verifier of the request's challenge (RFC 7636), sent with the code.
    public let codeVerifier: String
    public let clientID: String
    public let redirectURI: String
}

/// A browser sign-in finished: the app's tokens and the ID token's claims, checked.
public struct SignedIn: Sendable, Equatable {
    public let accessToken: String
    public let expiresIn: Int
    /// With `offline_access`, or for a first-party app.
    public let refreshToken: String?
    public let idToken: String
    /// The account's id (`sub`).
    public let subject: String
    /// How the user signed in (RFC 8176: `pwd`, `otp`, `hwk`, `swk`, `mfa`).
    public let methods: [String]
}

/// Why a browser sign-in failed.
public enum SignInError: Error, Equatable {
    /// The answer is not this sign-in's: another `state`, another issuer (a mix-up, RFC 9207),
    /// or none of them.
    case notThisSignIn
    /// The user or authd refused: the `error` of the answer (`access_denied`, `login_required`, …).
    case refused(String)
    /// authd refused the code (`invalid_grant`: used, expired, or not this app's).
    case codeRefused(String)
    /// The ID token does not hold: its signature, issuer, audience, expiry, nonce or `at_hash`.
    case invalidIDToken(String)
    /// authd's answer could not be understood.
    case malformedResponse
}

extension LoginAPI {
    /// The provider's configuration (OpenID Connect Discovery 1.0).
    struct Discovery: Decodable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let jwksURI: String

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
        }
    }

    func discovery() async throws -> Discovery {
        let (data, http) = try await perform(try request("GET", ".well-known/openid-configuration"))
        guard http.statusCode == 200, let discovery = try? JSONDecoder().decode(Discovery.self, from: data) else {
            throw SignInError.malformedResponse
        }
        return discovery
    }

    /// Begins a browser sign-in for the app `clientID` (registered with
    /// `authd client add NAME --public --redirect-uri URI`): a fresh `state`, `nonce` and PKCE
    /// pair, and the URL to open.
    ///
    /// ```swift
    /// let pending = try await api.beginSignIn(clientID: "phone-app", redirectURI: "com.example.app:/callback")
    /// // open pending.url in the system browser; it comes back to the redirect URI
    /// let signedIn = try await api.finishSignIn(callback: callbackURL, pending: pending)
    /// ```
    public func beginSignIn(clientID: String, redirectURI: String, scopes: [String] = ["openid", "profile", "offline_access"])
        async throws -> PendingSignIn
    {
        let discovery = try await discovery()
        let (state, nonce, verifier) = (Self.random(), Self.random(), Self.random() + Self.random())
        let challenge = Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
        guard var components = URLComponents(string: discovery.authorizationEndpoint) else { throw SignInError.malformedResponse }
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        // `+` stays literal in a query item; a form decoder reads it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw SignInError.malformedResponse }
        return PendingSignIn(url: url, state: state, nonce: nonce, codeVerifier: verifier, clientID: clientID, redirectURI: redirectURI)
    }

    /// Finishes the sign-in `pending` began with the URL the browser came back to: checks its
    /// `state` and `iss`, exchanges its code with the PKCE verifier, and checks the ID token
    /// (its signature against authd's published keys; `iss`, `aud`, `exp`, `nonce`, `at_hash`).
    /// - Throws: ``SignInError``, or a `URLError` when authd cannot be reached.
    public func finishSignIn(callback: URL, pending: PendingSignIn) async throws -> SignedIn {
        let discovery = try await discovery()
        var answer: [String: String] = [:]
        for item in URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? [] { answer[item.name] = item.value }
        guard answer["state"] == pending.state, answer["iss"] == discovery.issuer else { throw SignInError.notThisSignIn }
        if let error = answer["error"] { throw SignInError.refused(error) }
        guard let code = answer["code"] else { throw SignInError.malformedResponse }

        var exchange = URLRequest(url: try Self.url(discovery.tokenEndpoint))
        exchange.httpMethod = "POST"
        exchange.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        exchange.httpBody = Data(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", pending.redirectURI),
                ("client_id", pending.clientID),
                ("code_verifier", pending.codeVerifier),
            ].map { "\($0.0)=\(Self.formEscaped($0.1))" }.joined(separator: "&").utf8)
        let (data, http) = try await perform(exchange)
        guard http.statusCode == 200 else {
            let error = (try? JSONDecoder().decode(ErrorBody.self, from: data))?.error ?? "status \(http.statusCode)"
            throw SignInError.codeRefused(error)
        }
        guard let tokens = try? JSONDecoder().decode(CodeTokens.self, from: data), tokens.tokenType == "Bearer" else {
            throw SignInError.malformedResponse
        }
        let claims = try await verifiedIDToken(tokens, discovery: discovery, pending: pending)
        return SignedIn(
            accessToken: tokens.accessToken, expiresIn: tokens.expiresIn, refreshToken: tokens.refreshToken, idToken: tokens.idToken,
            subject: claims.sub, methods: claims.amr ?? [])
    }

    struct CodeTokens: Decodable {
        let accessToken: String
        let tokenType: String
        let expiresIn: Int
        let refreshToken: String?
        let idToken: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
            case idToken = "id_token"
        }
    }

    struct IDTokenClaims: Decodable {
        let iss: String
        let sub: String
        let aud: [String]
        let exp: Int
        let nonce: String?
        let atHash: String?
        let amr: [String]?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, nonce, amr
            case atHash = "at_hash"
        }
    }

    struct Header: Decodable {
        let alg: String
        let kid: String
    }

    struct JWK: Decodable {
        let kty: String
        let kid: String
        let crv: String?
        let x: String?
        let y: String?
        let n: String?
        let e: String?
    }

    struct JWKSet: Decodable {
        let keys: [JWK]
    }

    /// The ID token's claims once its signature (OpenID Connect Core §3.1.3.7: the key the
    /// header names, of the algorithm it says) and its claims hold.
    func verifiedIDToken(_ tokens: CodeTokens, discovery: Discovery, pending: PendingSignIn) async throws -> IDTokenClaims {
        let parts = tokens.idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Self.unbase64URL(parts[0]), let payload = Self.unbase64URL(parts[1]),
            let signature = Self.unbase64URL(parts[2]), let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: payload)
        else { throw SignInError.invalidIDToken("it is not a JWT") }
        let (keyData, http) = try await perform(URLRequest(url: try Self.url(discovery.jwksURI)))
        guard http.statusCode == 200, let keys = try? JSONDecoder().decode(JWKSet.self, from: keyData),
            let key = keys.keys.first(where: { $0.kid == header.kid })
        else { throw SignInError.invalidIDToken("its key is not published") }
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        guard try Self.verifies(signature, of: signed, key: key, algorithm: header.alg) else {
            throw SignInError.invalidIDToken("its signature does not verify")
        }
        guard claims.iss == discovery.issuer else { throw SignInError.invalidIDToken("another issuer") }
        guard claims.aud.contains(pending.clientID) else { throw SignInError.invalidIDToken("not for this app") }
        guard Double(claims.exp) > Date().timeIntervalSince1970 else { throw SignInError.invalidIDToken("expired") }
        guard claims.nonce == pending.nonce else { throw SignInError.invalidIDToken("another nonce") }
        let digest: [UInt8] =
            header.alg == "EdDSA"
            ? Array(SHA512.hash(data: Data(tokens.accessToken.utf8))) : Array(SHA256.hash(data: Data(tokens.accessToken.utf8)))
        guard claims.atHash == Self.base64URL(Data(digest.prefix(digest.count / 2))) else {
            throw SignInError.invalidIDToken("at_hash is not the access token's")
        }
        return claims
    }

    static func verifies(_ signature: Data, of data: Data, key: JWK, algorithm: String) throws -> Bool {
        switch (algorithm, key.kty) {
        case ("RS256", "RSA"):
            guard let n = key.n.flatMap(unbase64URL), let e = key.e.flatMap(unbase64URL) else { return false }
            return try _RSA.Signing.PublicKey(n: n, e: e).isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        case ("ES256", "EC"):
            guard let x = key.x.flatMap(unbase64URL), let y = key.y.flatMap(unbase64URL) else { return false }
            return try P256.Signing.PublicKey(rawRepresentation: x + y).isValidSignature(
                try P256.Signing.ECDSASignature(rawRepresentation: signature), for: data)
        case ("EdDSA", "OKP"):
            guard let x = key.x.flatMap(unbase64URL) else { return false }
            return try Curve25519.Signing.PublicKey(rawRepresentation: x).isValidSignature(signature, for: data)
        default:
            return false
        }
    }

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw SignInError.malformedResponse }
        return url
    }

    /// 256 random bits, base64url.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func formEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
