import Foundation

/// What request matching needs of a matcher: its placeholders, how narrow it is, and how it
/// applies to text (a path segment, a query parameter, a header).
extension Matcher {
    /// Every `{{name}}` in the literal strings of this matcher, its members and claims, and
    /// the options of its kinds (a `totp` secret).
    public var templateVariables: [String] {
        switch kind {
        case .literal(.string(let text)): Template.mayHavePlaceholders(text) ? Template(text).variables : []
        case .literal: []
        case .object(let members): members.keys.sorted().flatMap { members[$0]?.templateVariables ?? [] }
        case .array(let elements): elements.flatMap(\.templateVariables)
        case .typed(let kind): kind.children.flatMap(\.templateVariables) + kind.ownVariables
        }
    }

    /// How narrow a scalar matcher is, for choosing among interactions that all fit a
    /// request: 4 a literal (or `null`, or a `totp` code or a `webauthn_…` credential, which
    /// the stub takes only when it is valid), 3 a narrow matcher (`uuid`, `regex`, `datetime`, `jwt`, `jwks`, `integer`,
    /// `boolean`, or `string`/`number` with bounds), 2 a wide one (`string`, `number`,
    /// `each`), 1 `any`. Objects and arrays add up their members; `one_of` is as narrow as its
    /// widest alternative, `basic_auth` as its wider part.
    ///
    /// ```swift
    /// Matcher(.uuid).specificity                             // 3
    /// Matcher(.string(minLength: nil, maxLength: nil)).specificity   // 2
    /// ```
    public var specificity: Int {
        switch kind {
        case .literal: 4
        case .object(let members): members.values.map(\.specificity).reduce(0, +)
        case .array(let elements): elements.map(\.specificity).reduce(0, +)
        case .typed(let kind): kind.specificity
        }
    }

    /// Whether this matcher can describe a piece of text (a header, a query parameter, a
    /// path segment): scalars only, not objects, arrays, `each`, `jwks` or a WebAuthn credential.
    public var appliesToText: Bool {
        switch kind {
        case .object, .array: false
        case .literal(let value): value.isScalar
        case .typed(let kind): kind.appliesToText
        }
    }

    /// Every way `text` fails this matcher. `integer`, `number`, `boolean` and `null` read
    /// the text as JSON (`"42"` is an integer); the others see it as a string.
    ///
    /// ```swift
    /// Matcher(.integer(min: 1, max: nil)).mismatches(inText: "42", at: "query page")   // []
    /// ```
    public func mismatches(inText text: String, at path: String) -> [Mismatch] {
        let value: JSONValue
        switch kind {
        case .typed(let kind) where kind.readsTextAsJSON:
            value = (try? JSONValue(parsing: Data(text.utf8))).flatMap { $0.isScalar ? $0 : nil } ?? .string(text)
        case .literal(let literal) where !literal.isString:
            value = (try? JSONValue(parsing: Data(text.utf8))) ?? .string(text)
        default:
            value = .string(text)
        }
        return mismatches(in: value, at: path)
    }
}

extension JSONValue {
    /// Whether this is neither an object nor an array.
    package var isScalar: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    /// Whether this is a string.
    var isString: Bool {
        if case .string = self { return true }
        return false
    }
}
