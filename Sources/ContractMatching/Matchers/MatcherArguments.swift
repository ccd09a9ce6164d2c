/// The keys of one `{ match: … }` as a contract format read them, for a kind's
/// ``MatcherKind/read(_:from:)``. Each accessor gives nil for a key that is absent, and
/// reports a value of the wrong type itself (`min must be an integer, not text`) before giving
/// nil, so that a kind only says what is wrong with values of the right type.
public protocol MatcherArguments {
    /// Whether the matcher is in a request, where a `totp` or a `webauthn_…` may be (a response
    /// or a delivery cannot be checked against a code or a credential).
    var inRequest: Bool { get }
    /// Whether `key` is written.
    func has(_ key: String) -> Bool
    /// `key`'s value as JSON without reporting anything (nil when absent or not a scalar).
    func scalar(_ key: String) -> JSONValue?
    mutating func integer(_ key: String) -> Int?
    mutating func number(_ key: String) -> Double?
    mutating func string(_ key: String) -> String?
    mutating func bool(_ key: String) -> Bool?
    /// `key`'s matcher, described as `what` in errors; `text`: a scalar is a literal string,
    /// and the matcher must apply to text.
    mutating func matcher(_ key: String, as what: String, member: Bool, text: Bool) -> Matcher?
    /// `key`'s list of matchers, each described as `what`.
    mutating func matchers(_ key: String, as what: String) -> [Matcher]?
    /// `key`'s mapping of names to matchers (each a member, which may be optional).
    mutating func members(_ key: String, as what: (String) -> String) -> [String: Matcher]?
    /// Reports `message` at `key`'s value, or at the matcher when `key` is nil.
    mutating func error(at key: String?, _ message: String)
}

extension MatcherArguments {
    /// `key`'s text, which must name one of `choices` (in any case); nil, reported, otherwise.
    public mutating func choice<Value>(_ key: String, _ choices: [(name: String, value: Value)]) -> Value? {
        guard let text = string(key) else { return nil }
        if let found = choices.first(where: { $0.name.lowercased() == text.lowercased() }) { return found.value }
        error(at: key, "unknown \(key) '\(text)' (expected one of: \(choices.map(\.name).joined(separator: ", ")))")
        return nil
    }

    /// Reports that `key` is needed, with `why`, when it is not written; whether it is.
    public mutating func require(_ key: String, of name: String, _ why: String) -> Bool {
        if has(key) { return true }
        error(at: nil, "matcher '\(name)' needs '\(key)' (\(why))")
        return false
    }
}
