/// The one policy for a password being set, after NIST SP 800-63B: normalised
/// (``PasswordPolicy/normalized(_:)``), 8 to 1024 characters (``PasswordPolicy``), not one
/// of the 10,000 most common passwords (``CommonPasswords``, case-insensitively), and, when
/// an offline list is given, not breached (``BreachedPasswordList``). No composition rules.
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
        if let breached, try breached.contains(password) {
            throw AuthError.weakPassword("password appears in a list of breached passwords")
        }
        return password
    }
}
