/// The built-in blocklist: the 10,000 most common passwords, most common first, from zxcvbn
/// (MIT; `common-passwords.LICENSE.md` beside the list says where they come from), embedded
/// in the binary. Compared case-insensitively: `Password` and `PASSWORD` are on it too.
///
/// ```swift
/// CommonPasswords.contains("QwertyUIOP")                      // true
/// CommonPasswords.contains("correct horse battery staple")    // false
/// ```
public enum CommonPasswords {
    /// Every entry, lowercase, in rank order.
    public static let ranked: [String] = String(decoding: PackageResources.common_passwords_txt, as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: true)
        .map(String.init)

    /// The entries as a set, built once on first use.
    private static let entries = Set(ranked)

    /// Whether `password` is on the list, compared after Unicode lowercasing (the list is
    /// lowercase). Pass the normalised password (``PasswordPolicy/normalized(_:)``).
    public static func contains(_ password: String) -> Bool {
        entries.contains(password.lowercased())
    }
}
