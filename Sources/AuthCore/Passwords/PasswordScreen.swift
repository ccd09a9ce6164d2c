/// The one policy for a password being set, after NIST SP 800-63B: normalised
/// (``PasswordPolicy/normalized(_:)``), 8 to 1024 characters (``PasswordPolicy``), not one
/// of the 10,000 most common passwords (``CommonPasswords``, case-insensitively), not a
/// repetitive or sequential run (``isRepetitiveOrSequential(_:)``), and, when an offline
/// list is given, not breached (``BreachedPasswordList``). No composition rules.
/// ``AccountService`` takes one from the composition root and screens every password it
/// sets; a password presented at login is never screened.
///
/// ```swift
/// let screen = PasswordScreen(breached: try BreachedPasswordList(path: "pwnedpasswords.txt"))
/// let password = try screen.screened("correct horse battery staple")   // the form to hash
/// try screen.screened("qwertyuiop")   // throws weak_password: one of the 10,000 most common
/// ```
public struct PasswordScreen: Sendable {
    /// The offline list of breached passwords, if any.
    public let breached: BreachedPasswordList?

    /// The built-in rules, and `breached` if given.
    public init(breached: BreachedPasswordList? = nil) {
        self.breached = breached
    }

    /// The normalised form of `password`, the one to hash, once it passes every rule. The
    /// breached list, when given, is read from disk: call it off an event loop.
    /// - Throws: ``AuthError/weakPassword(_:)`` saying why (never echoing the password),
    ///   ``AuthError/invalidRequest(_:)`` for a password too long or with NUL, and
    ///   ``BreachedPasswordList/Invalid`` when the breached list cannot be read.
    public func screened(_ password: String) throws -> String {
        let password = PasswordPolicy.normalized(password)
        try PasswordPolicy.validateNew(password)
        if CommonPasswords.contains(password) {
            throw AuthError.weakPassword("password is one of the 10,000 most common passwords")
        }
        if Self.isRepetitiveOrSequential(password) {
            throw AuthError.weakPassword("password is a repeated or sequential run of characters")
        }
        if let breached, try breached.contains(password) {
            throw AuthError.weakPassword("password appears in a list of breached passwords")
        }
        return password
    }

    /// Whether `password` is one block of at most three characters repeated (`aaaaaaaa`,
    /// `abababab`, `123123123`), or characters that each step by one from the last, up or
    /// down (`abcdefgh`, `87654321`), case ignored: what NIST SP 800-63B names as repetitive
    /// or sequential, which no list of common passwords can hold in full.
    ///
    /// ```swift
    /// PasswordScreen.isRepetitiveOrSequential("abcdefgh")                       // true
    /// PasswordScreen.isRepetitiveOrSequential("correct horse battery staple")   // false
    /// ```
    public static func isRepetitiveOrSequential(_ password: String) -> Bool {
        let scalars = Array(password.lowercased().unicodeScalars.map(\.value))
        guard scalars.count > 3 else { return true }
        for period in 1...3 where scalars.indices.allSatisfy({ scalars[$0] == scalars[$0 % period] }) {
            return true
        }
        let steps = zip(scalars.dropFirst(), scalars).map { Int64($0) - Int64($1) }
        return steps.allSatisfy { $0 == 1 } || steps.allSatisfy { $0 == -1 }
    }
}
