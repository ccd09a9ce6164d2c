import Foundation

/// HTTP Basic credentials (RFC 7617): `Basic ` and the base64 of `username:password`. The one
/// reading of them in the package: authd's client authentication, and the contract matchers
/// and stub's `basic_auth`.
///
/// ```swift
/// BasicCredentials.header(username: "client", password: "s3cret")   // "Basic Y2xpZW50OnMzY3JldA=="
/// BasicCredentials.decode("basic Y2xpZW50OnMzY3JldA==")              // ("client", "s3cret")
/// ```
public enum BasicCredentials {
    /// The `Authorization` value for these credentials.
    public static func header(username: String, password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// The credentials in an `Authorization` value: the scheme `Basic` in any case, base64
    /// of UTF-8 text, split at the first colon; nil when the value is not that.
    public static func decode(_ header: String) -> (username: String, password: String)? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "basic" else { return nil }
        let encoded = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else {
            return nil
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
