import Foundation
import JOSE
import WebForms

/// A `basic_auth` matcher's password check (the credentials themselves are read by
/// `WebForms.BasicCredentials`).
public enum BasicAuth {
    /// Whether `password` matches the contract's `expected`: a literal is compared in
    /// constant time, a matcher of text by its rules. The caller fills placeholders first.
    ///
    /// ```swift
    /// BasicAuth.passwordMatches(Matcher(.literal(.string("s3cret"))), "s3cret")             // true
    /// BasicAuth.passwordMatches(Matcher(.string(minLength: 8, maxLength: nil)), "short")   // false
    /// ```
    public static func passwordMatches(_ expected: Matcher, _ password: String) -> Bool {
        if case .literal(.string(let literal)) = expected.kind {
            return ConstantTime.equal(Array(literal.utf8), Array(password.utf8))
        }
        return expected.mismatches(inText: password, at: "$").isEmpty
    }
}

extension Matcher {
    /// What a `basic_auth` matcher finds wrong in `actual`: not Basic credentials, a
    /// username that fails its matcher, or a password that does (never shown).
    ///
    /// ```swift
    /// let matcher = Matcher(.basicAuth(username: Matcher(.literal(.string("client"))), password: Matcher(.literal(.string("s3cret")))))
    /// matcher.mismatches(in: .string(BasicCredentials.header(username: "client", password: "wrong")))
    /// // ["$: expected the contract's password, got the password does not match"]
    /// ```
    static func basicAuthMismatches(username: Matcher, password: Matcher, in actual: JSONValue, at path: String) -> [Mismatch] {
        guard case .string(let text) = actual, let credentials = BasicCredentials.decode(text) else {
            // The value may be someone's credentials: its type is said, not the value.
            return [
                Mismatch(
                    path: path, expected: "HTTP Basic credentials (Basic base64(username:password))",
                    actual: "a value that is not (not shown)")
            ]
        }
        var found = username.mismatches(inText: credentials.username, at: "\(path) username")
        if !BasicAuth.passwordMatches(password, credentials.password) {
            found.append(Mismatch(path: "\(path) password", expected: "the contract's password", actual: "the password does not match"))
        }
        return found
    }
}
