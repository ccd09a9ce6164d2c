import ContractKit

extension MatcherBreadth {
    /// Compares two matchers (examples are not compared):
    ///
    /// - a literal ⊂ any matcher that accepts it (`"Bearer"` ⊂ `regex`, `900` ⊂ `integer`);
    /// - objects and arrays member by member, the same way when all agree; an object's key
    ///   made optional widens, made required narrows, an optional key added or removed changes
    ///   nothing for values without it;
    /// - typed matchers as their kinds say (``MatcherKind/breadth(becoming:compare:)``): `regex`,
    ///   `uuid`, `datetime`, `jwt` ⊂ `string` ⊂ `any`; `integer` ⊂ `number`; bounds by inclusion;
    ///   `one_of` by its alternatives;
    /// - anything else (two patterns, `uuid` against `regex`): ``different`` (not comparable,
    ///   so treated as breaking).
    ///
    /// ```swift
    /// MatcherBreadth(old: Matcher(.string(minLength: nil, maxLength: nil)), new: Matcher(.uuid))   // .narrower
    /// ```
    public init(old: Matcher, new: Matcher) {
        self = Self.compare(old.kind, new.kind)
    }

    private static func compare(_ old: Matcher.Kind, _ new: Matcher.Kind) -> Self {
        if old == new { return .same }
        let compare = { (old: Matcher, new: Matcher) in MatcherBreadth(old: old, new: new) }
        if case .typed(let kind) = old, let found = kind.breadth(becoming: new, compare: compare) { return found }
        if case .typed(let kind) = new, let found = kind.breadth(becoming: old, compare: { compare($1, $0) }) { return found.reversed }
        switch (old, new) {
        case (.literal(let value), _): return Matcher(new).mismatches(in: value).isEmpty ? .wider : .different
        case (_, .literal(let value)): return Matcher(old).mismatches(in: value).isEmpty ? .narrower : .different
        case (.array(let oldElements), .array(let newElements)) where oldElements.count == newElements.count:
            return zip(oldElements, newElements).reduce(.same) { $0.combined(with: MatcherBreadth(old: $1.0, new: $1.1)) }
        case (.object(let oldMembers), .object(let newMembers)):
            // A key required anew narrows; a key no longer required widens.
            var result = Self.same
            for key in Set(oldMembers.keys).union(newMembers.keys) {
                switch (oldMembers[key], newMembers[key]) {
                case (let a?, let b?):
                    result = result.combined(with: MatcherBreadth(old: a, new: b))
                    if a.optional != b.optional { result = result.combined(with: b.optional ? .wider : .narrower) }
                case (nil, let b?): if !b.optional { result = result.combined(with: .narrower) }
                case (let a?, nil): if !a.optional { result = result.combined(with: .wider) }
                case (nil, nil): break
                }
            }
            return result
        default:
            return .different
        }
    }
}
