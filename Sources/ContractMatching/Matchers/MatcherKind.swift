import Foundation

/// One kind of typed matcher (`{ match: uuid }`): its name and keys, how it is read and
/// written, how it checks a value and says what it expects, the sample it makes, and how
/// JSON Schema, Pact and `contract diff` see it. A kind is one file with a type conforming to
/// this, listed once in ``MatcherKinds/all``.
///
/// ```swift
/// let kind: any MatcherKind = UUIDMatcher()
/// kind.mismatches(in: .string("nope"), at: "$.id", strict: false)   // ["$.id: expected a UUID string, got string \"nope\""]
/// ```
public protocol MatcherKind: Sendable, Equatable {
    /// The names after `match:` this kind reads (a WebAuthn credential has one per ceremony).
    static var names: [String] { get }
    /// The keys a matcher named `name` takes besides `match`, `example` and `optional`.
    static func parameters(of name: String) -> [String]
    /// Whether an `example` may be written (not for a value that depends on the moment).
    static var takesExample: Bool { get }
    /// The matcher named `name` from its keys, each problem reported to `arguments`; nil
    /// when there is one.
    static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self?
    /// The kind a JSON Schema's keywords (`format`, `contentMediaType`) name, for importing
    /// an OpenAPI document; nil when they do not name this one.
    static func recognizing(schema: [String: JSONValue]) -> Self?
    /// The kind a recorded string looks like it was made by (a UUID, a JWT, a time), for
    /// `contract record`; nil when it does not look like one of this kind.
    static func recognizing(recorded text: String) -> Self?

    /// The name written after `match:`.
    var name: String { get }
    /// The keys written besides `match`, `example` and `optional`, in order (default values left out).
    var arguments: [(key: String, value: MatcherArgument)] { get }

    /// The matchers inside this one (an `each`'s element, a `jwt`'s claims).
    var children: [Matcher] { get }
    /// This kind with `transform` applied to each matcher inside it.
    func mapChildren(_ transform: (Matcher) -> Matcher) -> Self
    /// The matchers a value may match any one of (a `one_of`'s); nil for a kind that is not
    /// a choice. The stub takes the alternative that fits best, `contract verify` reports the
    /// ones never seen, and the live and stub answers may differ where it is.
    var alternatives: [Matcher]? { get }
    /// The matcher a JSON path's key leads to inside this kind (a `jwt`'s claim); nil when none.
    func matcher(forKey key: String) -> Matcher?
    /// The matcher a JSON path's index leads to inside this kind (an `each`'s element); nil when none.
    func matcher(forIndex index: Int) -> Matcher?
    /// The `{{name}}`s of this kind's own options (a `totp` secret), besides its children's.
    var ownVariables: [String] { get }
    /// This kind with its own options' `{{name}}`s filled from `variables`; the names it
    /// could not fill are added to `undefined`.
    func resolvingOwn(with variables: [String: JSONValue], undefined: inout [String]) -> Self

    /// Every way `actual` fails this kind, found at `path`.
    func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch]
    /// What it expects, for reports (`a UUID string`).
    var summary: String { get }
    /// The JSON type of every value it takes (`string`, `object`, …); nil when it takes several.
    var jsonType: String? { get }
    /// How narrow it is, for choosing among interactions that fit a request (``Matcher/specificity``).
    var specificity: Int { get }
    /// Whether it can describe a piece of text (a header, a query parameter, a path segment).
    var appliesToText: Bool { get }
    /// Whether text is read as JSON before checking (`"42"` an integer), or seen as a string.
    var readsTextAsJSON: Bool { get }

    /// A value that satisfies it: `example` (the matcher's) when that will do, else one made.
    /// - Throws: ``MatcherSampleError`` when none can be made; what the context's parts throw.
    func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue
    /// Its JSON Schema (2020-12); `child` gives a matcher inside it its schema.
    func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue]
    /// Its Pact v3 rules, added to `pact` at `path` and below, and the example Pact shows
    /// (`example`, the matcher's, when there is one); nil when Pact has no rule for it.
    func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue?
    /// How the values of `new` relate to this kind's when this is the old matcher; nil when
    /// this kind cannot tell (`contract diff` then asks the other side).
    /// `compare` compares two matchers inside them.
    func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth?
}

extension MatcherKind {
    public static func parameters(of name: String) -> [String] { [] }
    public static var takesExample: Bool { true }
    public static func recognizing(schema: [String: JSONValue]) -> Self? { nil }
    public static func recognizing(recorded text: String) -> Self? { nil }
    public var name: String { Self.names[0] }
    public var arguments: [(key: String, value: MatcherArgument)] { [] }
    public var children: [Matcher] { [] }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self { self }
    public var alternatives: [Matcher]? { nil }
    public func matcher(forKey key: String) -> Matcher? { nil }
    public func matcher(forIndex index: Int) -> Matcher? { nil }
    public var ownVariables: [String] { [] }
    public func resolvingOwn(with variables: [String: JSONValue], undefined: inout [String]) -> Self { self }
    public var specificity: Int { 3 }
    public var appliesToText: Bool { jsonType.map { $0 != "object" && $0 != "array" } ?? true }
    public var readsTextAsJSON: Bool { false }
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? { nil }

    /// Whether `other` is this same kind with the same options.
    func isEqual(to other: any MatcherKind) -> Bool {
        (other as? Self) == self
    }

    /// `expected` as the one mismatch at `path`, or none when `matches`.
    package func check(_ matches: Bool, _ actual: JSONValue, at path: String) -> [Mismatch] {
        matches ? [] : [Mismatch(path: path, expected: summary, actual: Mismatch.describe(actual))]
    }
}

/// A value a kind writes after one of its keys.
public enum MatcherArgument: Sendable {
    /// A scalar or JSON value (`min: 1`, `pattern: "[0-9]+"`).
    case value(JSONValue)
    /// A matcher (`of:` of an `each`).
    case matcher(Matcher)
    /// A list of matchers (`of:` of a `one_of`).
    case matchers([Matcher])
    /// Matchers by name (`claims:` of a `jwt`).
    case members([String: Matcher])
}
