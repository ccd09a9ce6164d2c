import AuthCore

/// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
/// case-insensitive).
///
/// ```swift
/// let token = try BearerToken(request.headers[.authorization]).value
/// ```
public struct BearerToken: Sendable, Equatable {
    /// The token, without the scheme.
    public let value: String

    /// Reads the header's value.
    /// - Throws: ``AuthCore/AuthError/invalidToken`` when it is missing or not a Bearer credential.
    public init(_ header: String?) throws {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { throw AuthError.invalidToken }
        let token = header.dropFirst(7).drop { $0 == " " }
        guard !token.isEmpty, !token.contains(" ") else { throw AuthError.invalidToken }
        value = String(token)
    }
}
