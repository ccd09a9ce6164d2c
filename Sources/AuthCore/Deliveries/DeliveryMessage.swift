import Foundation

/// The JSON body posted to the delivery URL:
/// `{"delivery_id", "kind", "user_id", "username", "email", "token", "expires_at", "link"}`, and `"code"` in an
/// `email_sign_in` message —
/// what the app's mailer needs to write the email (a link with the token, or authd's own
/// page's link when authd knows its public URL: ``DeliveryLinks``), and the message's id,
/// the same on every attempt, inside the signed body so that a receiver's de-duplication
/// rests on what the signature covers. A notice (``DeliveryKind/tokenPurpose`` nil) has
/// `token`, `expires_at` and `link` null.
///
/// ```swift
/// let body = try DeliveryMessage(deliveryID: 42, kind: .passwordReset, userID: id, username: "alice",
///                                email: "alice@example.com", token: token, expiresAt: expiry).encoded()
/// ```
public struct DeliveryMessage: Sendable, Equatable, Codable {
    /// The message's id in the outbox, as a decimal string (also sent as `Authd-Delivery-Id`).
    public var deliveryID: String
    /// A ``DeliveryKind``'s raw value.
    public var kind: String
    /// The account's id.
    public var userID: UUID
    /// The account's username.
    public var username: String
    /// Where to send it (null when the account has no address: a reset asked by username).
    public var email: String?
    /// The single-use token (nil in a notice). Never log it.
    public var token: String?
    /// The 6-digit code an `email_sign_in` message carries beside its token (absent from
    /// any other). Never log it.
    public var code: String?
    /// When the token stops working (RFC 3339, UTC; nil in a notice).
    public var expiresAt: Date?
    /// authd's page for the token (nil in a notice, or without a public URL). Never log it.
    public var link: String?

    /// Creates a message.
    public init(
        deliveryID: Int64, kind: DeliveryKind, userID: UUID, username: String, email: String?, token: String?, expiresAt: Date?,
        link: String? = nil, code: String? = nil
    ) {
        self.deliveryID = String(deliveryID)
        self.kind = kind.rawValue
        self.userID = userID
        self.username = username
        self.email = email
        self.token = token
        self.expiresAt = expiresAt
        self.link = link
        self.code = code
    }

    enum CodingKeys: String, CodingKey {
        case kind, username, email, token, link, code
        case deliveryID = "delivery_id"
        case userID = "user_id"
        case expiresAt = "expires_at"
    }

    /// The body's bytes: keys sorted, absent values written as null (but `code`, left out),
    /// dates in RFC 3339.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deliveryID, forKey: .deliveryID)
        try container.encode(kind, forKey: .kind)
        try container.encode(userID.uuidString.lowercased(), forKey: .userID)
        try container.encode(username, forKey: .username)
        try container.encode(email, forKey: .email)
        try container.encode(token, forKey: .token)
        try container.encodeIfPresent(code, forKey: .code)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(link, forKey: .link)
    }
}
