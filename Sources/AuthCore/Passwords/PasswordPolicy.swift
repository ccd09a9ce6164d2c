/// Length rules for passwords, after NIST SP 800-63B: 8 to 1024 characters, no
/// composition rules, no NUL; and their one spelling (``normalized(_:)``). A password being
/// set goes through ``PasswordScreen``, which adds the common and breached lists.
///
/// ```swift
/// try PasswordPolicy.validateNew("correct horse battery staple")   // ok
/// try PasswordPolicy.validateNew("short")                          // throws weak_password
/// ```
public enum PasswordPolicy {
    /// The shortest password a new account may have.
    public static let minimumLength = 8
    /// The longest password accepted anywhere (bounds hashing work).
    public static let maximumLength = 1024

    /// Checks a password presented at login: non-empty, at most ``maximumLength``, no NUL.
    /// Shortness is not checked here: a short password just fails to match.
    public static func validatePresented(_ password: String) throws {
        guard !password.isEmpty else { throw AuthError.invalidRequest("password must not be empty") }
        try validateCommon(password)
    }

    /// Checks a password being set: ``minimumLength`` (else `weak_password`) to
    /// ``maximumLength``, no NUL.
    public static func validateNew(_ password: String) throws {
        guard password.count >= minimumLength else {
            throw AuthError.weakPassword("password must be at least \(minimumLength) characters")
        }
        try validateCommon(password)
    }

    /// The form a password is hashed in, as RFC 8265's OpaqueString profile prepares it:
    /// every non-ASCII space as U+0020, then Unicode NFC. So `é` typed as one character or
    /// as `e` and a combining accent, on whatever keyboard, is the same password.
    ///
    /// ```swift
    /// PasswordPolicy.normalized("cafe\u{301}") == PasswordPolicy.normalized("caf\u{E9}")   // same scalars
    /// ```
    public static func normalized(_ password: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in password.unicodeScalars {
            mapped.append(scalar.properties.generalCategory == .spaceSeparator ? " " : scalar)
        }
        return String(mapped).precomposedStringWithCanonicalMapping
    }

    /// Whether `a` and `b` are the same Unicode scalars (Swift's `==` compares canonically
    /// equivalent strings as equal, but they hash differently).
    static func sameScalars(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.elementsEqual(b.unicodeScalars)
    }

    private static func validateCommon(_ password: String) throws {
        // Checked on UTF-8 length first so a huge input costs no grapheme walk.
        guard password.utf8.count <= maximumLength * 4, password.count <= maximumLength else {
            throw AuthError.invalidRequest("password must be at most \(maximumLength) characters")
        }
        guard !password.utf8.contains(0) else {
            throw AuthError.invalidRequest("password must not contain NUL characters")
        }
    }
}
