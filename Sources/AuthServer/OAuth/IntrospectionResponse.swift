import AuthCore

/// The body of `POST /oauth/introspect` (RFC 7662 §2.2): `{"active": false}`, or `active`
/// with the token's claims; keys without a value are left out.
///
/// ```swift
/// JSONResponse.make(status: .ok, body: IntrospectionResponse(.inactive))   // {"active":false}
/// ```
public struct IntrospectionResponse: Encodable, Sendable, Equatable {
    /// What the service found.
    public let answer: TokenIntrospection

    /// The body for `answer`.
    public init(_ answer: TokenIntrospection) {
        self.answer = answer
    }

    private enum CodingKeys: String, CodingKey {
        case active, sub, username, exp, iat, iss, aud, jti, sid
        case tokenType = "token_type"
        case clientID = "client_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(answer.active, forKey: .active)
        try container.encodeIfPresent(answer.sub, forKey: .sub)
        try container.encodeIfPresent(answer.username, forKey: .username)
        try container.encodeIfPresent(answer.exp, forKey: .exp)
        try container.encodeIfPresent(answer.iat, forKey: .iat)
        try container.encodeIfPresent(answer.iss, forKey: .iss)
        try container.encodeIfPresent(answer.aud, forKey: .aud)
        try container.encodeIfPresent(answer.tokenType, forKey: .tokenType)
        try container.encodeIfPresent(answer.clientID, forKey: .clientID)
        try container.encodeIfPresent(answer.jti, forKey: .jti)
        try container.encodeIfPresent(answer.sid, forKey: .sid)
    }
}
