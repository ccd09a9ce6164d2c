import Foundation

/// The name in Sign in with Apple's `user` form field: JSON Apple posts to the callback with
/// the first authorization of an app only (`{"name": {"firstName", "lastName"}, "email"}`),
/// never again and never in the ID token, so it is kept from that sign-in. What the browser
/// posts is the user's to write: the name is cut to ``maxLength`` characters, without
/// control characters, and nothing else in the JSON is trusted (the email comes from the ID
/// token).
///
/// ```swift
/// AppleUserName.parse(#"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#)   // "Ada Lovelace"
/// ```
public enum AppleUserName {
    /// The longest name kept, in characters.
    public static let maxLength = 200

    /// The full name `json` gives, nil when it gives none or is not Apple's shape.
    public static func parse(_ json: String?) -> String? {
        guard let json, json.utf8.count <= 4096,
            let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let name = object["name"] as? [String: Any]
        else { return nil }
        let parts = ["firstName", "middleName", "lastName"].compactMap { name[$0] as? String }
        let full = parts.joined(separator: " ").unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        let text = String(String.UnicodeScalarView(full)).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : String(text.prefix(maxLength))
    }
}
