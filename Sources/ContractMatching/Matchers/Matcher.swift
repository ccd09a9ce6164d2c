import Foundation

/// What a contract expects of a JSON value: a literal, a structure of matchers, or a
/// typed matcher (`{ match: integer, min: 1 }`), each with an optional `example`; a key of an
/// object may be `optional` (absent, or present and matching), and `one_of` takes any of
/// several matchers.
///
/// ```swift
/// let matcher = Matcher(.integer(min: 1, max: nil), example: .integer(900))
/// matcher.mismatches(in: .integer(900))   // []
/// matcher.mismatches(in: .string("900"))  // ["$: expected an integer, got string \"900\""]
/// ```
public struct Matcher: Sendable, Equatable {
    /// The kinds of matcher: a literal, an object or an array written as such, or a typed
    /// matcher (`{ match: … }`), one of ``MatcherKinds/all``. Each typed kind has a constructor
    /// here in its own file (`.uuid`, `.integer(min:max:)`).
    public indirect enum Kind: Sendable, Equatable {
        /// A scalar that must be equal (integers equal numbers of the same value).
        case literal(JSONValue)
        /// An object whose listed keys must match; others are allowed unless strict.
        case object([String: Matcher])
        /// An array of exactly these elements.
        case array([Matcher])
        /// A typed matcher.
        case typed(any MatcherKind)

        public static func == (lhs: Kind, rhs: Kind) -> Bool {
            switch (lhs, rhs) {
            case (.literal(let a), .literal(let b)): a == b
            case (.object(let a), .object(let b)): a == b
            case (.array(let a), .array(let b)): a == b
            case (.typed(let a), .typed(let b)): a.isEqual(to: b)
            default: false
            }
        }

        /// This kind as a `T`, when it is one.
        ///
        /// ```swift
        /// Matcher.Kind.each(of: Matcher(.any), min: 1, max: nil).as(EachMatcher.self)?.min   // 1
        /// ```
        public func `as`<T: MatcherKind>(_ type: T.Type) -> T? {
            if case .typed(let kind) = self { kind as? T } else { nil }
        }
    }

    /// What is expected.
    public let kind: Kind
    /// A value the stub can answer with (validated against the matcher when loaded).
    public let example: JSONValue?
    /// As a key of an object: the key may be absent (`optional: true`); when present, its
    /// value must match.
    public let optional: Bool

    /// Creates a matcher.
    public init(_ kind: Kind, example: JSONValue? = nil, optional: Bool = false) {
        self.kind = kind
        self.example = example
        self.optional = optional
    }

    /// This matcher as an optional key's (or not).
    ///
    /// ```swift
    /// Matcher(.string(minLength: 1, maxLength: nil)).optional(true)   // { match: string, min_length: 1, optional: true }
    /// ```
    public func optional(_ optional: Bool) -> Matcher {
        Matcher(kind, example: example, optional: optional)
    }

    /// A matcher for exactly `value`, recursively.
    public static func literal(_ value: JSONValue) -> Matcher {
        switch value {
        case .object(let members): Matcher(.object(members.mapValues(literal)))
        case .array(let elements): Matcher(.array(elements.map(literal)))
        default: Matcher(.literal(value))
        }
    }

    /// The matcher names accepted after `match:` (``MatcherKinds/names``).
    public static var names: [String] { MatcherKinds.names }

    /// This matcher with every literal string that is a template (`"{{sub}}"`) replaced by
    /// the saved value it names: a sole `{{name}}` takes the value with its JSON type, text
    /// around variables is rendered as a string. Templates naming unsaved variables stay,
    /// and their names are added to `undefined`. An `example` that is a template is rendered
    /// as text when every variable it names is saved.
    ///
    /// ```swift
    /// let expected = Matcher.literal(.object(["user_id": .string("{{sub}}")]))
    /// var undefined: [String] = []
    /// expected.resolved(with: ["sub": .string("8c0e…")], undefined: &undefined)   // user_id: "8c0e…"
    /// ```
    public func resolved(with variables: [String: JSONValue], undefined: inout [String]) -> Matcher {
        let example = resolvedExample(with: variables)
        switch kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text):
            let template = Template(text)
            let missing = template.requiredVariables.filter { variables[$0] == nil }
            guard missing.isEmpty else {
                undefined += missing
                return Matcher(kind, example: example, optional: optional)
            }
            if let name = template.soleVariable, let value = variables[name] {
                return Matcher(.literal(value), example: example, optional: optional)
            }
            guard let rendered = try? template.render(variables) else { return Matcher(kind, example: example, optional: optional) }
            return Matcher(.literal(.string(rendered)), example: example, optional: optional)
        case .object(let members):
            return Matcher(
                .object(members.mapValues { $0.resolved(with: variables, undefined: &undefined) }), example: example, optional: optional)
        case .array(let elements):
            return Matcher(
                .array(elements.map { $0.resolved(with: variables, undefined: &undefined) }), example: example, optional: optional)
        case .typed(let kind):
            return Matcher(.typed(Self.resolving(kind, with: variables, undefined: &undefined)), example: example, optional: optional)
        default:
            return Matcher(kind, example: example, optional: optional)
        }
    }

    /// The example, with `{{request.base_url}}` as ``Template/sampleBaseURL`` where no stub
    /// filled it with where a request was sent: the value a check of the example, an export
    /// or a stub asked without a base URL shows.
    public var sampleExample: JSONValue? {
        resolvedExample(with: [Template.requestBaseURL: .string(Template.sampleBaseURL)])
    }

    /// The example with its `{{name}}`s filled as text when every one is saved (a stub's
    /// page whose form action carries the request's `state`); else as written.
    private func resolvedExample(with variables: [String: JSONValue]) -> JSONValue? {
        guard case .string(let text)? = example, Template.mayHavePlaceholders(text) else { return example }
        let template = Template(text)
        guard template.requiredVariables.allSatisfy({ variables[$0] != nil }), let rendered = try? template.render(variables) else {
            return example
        }
        return .string(rendered)
    }

    /// `kind` with its children's and its own placeholders filled.
    private static func resolving<Kind: MatcherKind>(
        _ kind: Kind, with variables: [String: JSONValue], undefined: inout [String]
    ) -> Kind {
        var missing: [String] = []
        let resolved = kind.mapChildren { $0.resolved(with: variables, undefined: &missing) }
        undefined += missing
        return resolved.resolvingOwn(with: variables, undefined: &undefined)
    }

    /// Every way `actual` fails this matcher, as `path: reason` lines; empty when it matches.
    /// - Parameters:
    ///   - actual: the value to check.
    ///   - path: where it is, as mismatches name it (`$` for the whole body).
    ///   - strict: forbid keys the contract does not list, in every object.
    public func mismatches(in actual: JSONValue, at path: String = "$", strict: Bool = false) -> [Mismatch] {
        func fail(_ expected: String) -> [Mismatch] {
            [Mismatch(path: path, expected: expected, actual: Mismatch.describe(actual))]
        }
        switch kind {
        case .literal(let expected):
            return Self.equal(expected, actual) ? [] : fail(expected.description)
        case .object(let members):
            guard case .object(let object) = actual else { return fail("an object") }
            var found: [Mismatch] = []
            for key in members.keys.sorted() {
                let childPath = Self.childPath(path, key)
                guard let value = object[key] else {
                    if members[key]?.optional != true {
                        found.append(
                            Mismatch(path: childPath, expected: members[key]?.summary ?? "a value", actual: "nothing (key missing)"))
                    }
                    continue
                }
                found += members[key]?.mismatches(in: value, at: childPath, strict: strict) ?? []
            }
            if strict {
                for key in object.keys.sorted() where members[key] == nil {
                    found.append(
                        Mismatch(
                            path: Self.childPath(path, key), expected: "no such key (strict)",
                            actual: Mismatch.describe(object[key] ?? .null)))
                }
            }
            return found
        case .array(let elements):
            guard case .array(let array) = actual else { return fail("an array") }
            guard array.count == elements.count else { return fail("an array of \(elements.count) elements") }
            return zip(elements, array).enumerated().flatMap { index, pair in
                pair.0.mismatches(in: pair.1, at: "\(path)[\(index)]", strict: strict)
            }
        case .typed(let kind):
            return kind.mismatches(in: actual, at: path, strict: strict)
        }
    }

    /// A short description of what this matcher expects, for reports.
    public var summary: String {
        switch kind {
        case .literal(let value): value.description
        case .object: "an object"
        case .array(let elements): "an array of \(elements.count) elements"
        case .typed(let kind): kind.summary
        }
    }

    /// The JSON type every value this matcher takes has (`string`, `object`, …), nil when
    /// it takes several (`any`, `one_of`).
    package var jsonType: String? {
        switch kind {
        case .literal(let value): value.typeName
        case .object: JSONValue.object([:]).typeName
        case .array: JSONValue.array([]).typeName
        case .typed(let kind): kind.jsonType
        }
    }

    /// Literal equality where `900` equals `900.0`.
    ///
    /// ```swift
    /// Matcher.equal(.integer(900), .number(900))   // true
    /// ```
    public static func equal(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): Double(a) == b
        default: expected == actual
        }
    }

    /// `$.a`, or `$["odd key"]` for keys that are not identifiers.
    package static func childPath(_ path: String, _ key: String) -> String {
        isSimpleKey(key) ? path + "." + key : "\(path)[\(JSONValue.string(key).description)]"
    }

    /// A key a path shows after a dot: letters, digits and `_`, not starting with a digit.
    /// ASCII keys are looked at byte by byte (every generated response builds these paths).
    private static func isSimpleKey(_ key: String) -> Bool {
        guard let first = key.utf8.first else { return false }
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            return key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(key.first?.isNumber ?? true)
        }
        let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        return !isDigit(first) && key.utf8.allSatisfy { isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "_") }
    }
}

/// One way a value failed a matcher.
///
/// ```swift
/// print(mismatch)   // "$.expires_in: expected an integer of at least 1, got string \"x\""
/// ```
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    /// Where, as a JSON path (`$.a.b[0]`), or `status` / `header X`.
    public let path: String
    /// What the contract expects.
    public let expected: String
    /// What was there.
    public let actual: String

    /// Creates a mismatch.
    public init(path: String, expected: String, actual: String) {
        self.path = path
        self.expected = expected
        self.actual = actual
    }

    /// `path: expected …, got …`.
    public var description: String { "\(path): expected \(expected), got \(actual)" }

    /// `type value`, values cut at 80 characters.
    package static func describe(_ value: JSONValue) -> String {
        let shown = value.abbreviated(limit: 80)
        switch value {
        case .null: return "null"
        case .object, .array: return "\(value.typeName) \(shown)"
        default: return "\(value.typeName) \(shown)"
        }
    }
}
