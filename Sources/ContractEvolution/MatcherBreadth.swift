import ContractKit

/// How a new matcher's accepted values relate to an old one's, for `contract diff`.
///
/// "Narrower" means every value the new matcher accepts the old one accepted too; "wider"
/// the reverse. The order used:
///
/// - a literal ⊂ any matcher that accepts it (`"Bearer"` ⊂ `regex`, `900` ⊂ `integer`);
/// - `regex`, `uuid`, `datetime`, `jwt` ⊂ `string` (without length bounds) ⊂ `any`;
/// - `integer` ⊂ `number` ⊂ `any`, when the bounds allow it; `boolean`, `null`, `jwks` ⊂ `any`;
/// - bounds by inclusion: `min: 1` ⊂ `min: 0`, `max_length: 10` ⊂ no `max_length`;
/// - `each`: by its count bounds and its element, both the same way or it is ``different``;
/// - `one_of`: by its alternatives (a matcher that is not one is a `one_of` of itself): narrower
///   when each new alternative is within an old one, wider when each old one is within a new one;
/// - an object's key: made optional widens, made required narrows, an optional key added or
///   removed changes nothing for values without it;
/// - two different patterns, literals, `uuid` against `regex`, `totp` or `webauthn_…`
///   specs that differ: ``different`` (not comparable, so treated as breaking).
///
/// ```swift
/// MatcherBreadth(old: Matcher(.string(minLength: nil, maxLength: nil)), new: Matcher(.uuid))   // .narrower
/// MatcherBreadth(old: Matcher(.integer(min: 1, max: nil)), new: Matcher(.integer(min: 0, max: nil)))   // .wider
/// ```
public enum MatcherBreadth: String, Sendable, Equatable {
    /// The same values (examples aside).
    case same
    /// Fewer values: each one the new matcher accepts, the old one did.
    case narrower
    /// More values: each one the old matcher accepted, the new one does.
    case wider
    /// Neither includes the other, or it cannot be told.
    case different

    /// Compares two matchers' kinds (examples are not compared). Objects and arrays compare
    /// member by member, the same way when all agree.
    public init(old: Matcher, new: Matcher) {
        self = Self.compare(old.kind, new.kind)
    }

    /// Two results of parts of one matcher combined: the same way, or ``different``.
    public func combined(with other: Self) -> Self {
        switch (self, other) {
        case (.same, let other), (let other, .same): other
        case (.narrower, .narrower): .narrower
        case (.wider, .wider): .wider
        default: .different
        }
    }

    /// The same comparison seen from the other side.
    public var reversed: Self {
        switch self {
        case .narrower: .wider
        case .wider: .narrower
        default: self
        }
    }

    private static func compare(_ old: Matcher.Kind, _ new: Matcher.Kind) -> Self {
        if old == new { return .same }
        switch (old, new) {
        case (.oneOf, _), (_, .oneOf):
            let after: [Matcher]
            if case .oneOf(let alternatives) = new { after = alternatives } else { after = [Matcher(new)] }
            let oldAlternatives: [Matcher]
            if case .oneOf(let alternatives) = old { oldAlternatives = alternatives } else { oldAlternatives = [Matcher(old)] }
            func within(_ inner: [Matcher], _ outer: [Matcher]) -> Bool {
                inner.allSatisfy { candidate in outer.contains { [.same, .narrower].contains(MatcherBreadth(old: $0, new: candidate)) } }
            }
            switch (within(after, oldAlternatives), within(oldAlternatives, after)) {
            case (true, true): return .same
            case (true, false): return .narrower
            case (false, true): return .wider
            case (false, false): return .different
            }
        case (.any, _): return .narrower
        case (_, .any): return .wider
        case (.literal(let value), _): return Matcher(new).mismatches(in: value).isEmpty ? .wider : .different
        case (_, .literal(let value)): return Matcher(old).mismatches(in: value).isEmpty ? .narrower : .different
        case (.string(let a, let b), .string(let c, let d)):
            return bounds(old: (a.map(Double.init), b.map(Double.init)), new: (c.map(Double.init), d.map(Double.init)))
        case (.regex, .string(nil, nil)), (.uuid, .string(nil, nil)), (.datetime, .string(nil, nil)), (.jwt, .string(nil, nil)):
            return .wider
        case (.string(nil, nil), .regex), (.string(nil, nil), .uuid), (.string(nil, nil), .datetime), (.string(nil, nil), .jwt):
            return .narrower
        case (.integer(let a, let b), .integer(let c, let d)), (.number(let a, let b), .number(let c, let d)):
            return bounds(old: (a, b), new: (c, d))
        case (.integer(let a, let b), .number(let c, let d)):
            return bounds(old: (a, b), new: (c, d)).combined(with: .wider)
        case (.number(let a, let b), .integer(let c, let d)):
            return bounds(old: (a, b), new: (c, d)).combined(with: .narrower)
        case (.jwks(let a, let b), .jwks(let c, let d)):
            return bounds(old: (a.map(Double.init), b.map(Double.init)), new: (c.map(Double.init), d.map(Double.init)))
        case (.each(let oldElement, let a, let b), .each(let newElement, let c, let d)):
            let counts = bounds(old: (a.map(Double.init), b.map(Double.init)), new: (c.map(Double.init), d.map(Double.init)))
            return counts.combined(with: MatcherBreadth(old: oldElement, new: newElement))
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
        case (.jwt(let oldClaims), .jwt(let newClaims)):
            return compare(.object(oldClaims), .object(newClaims))
        default:
            return .different
        }
    }

    /// Bounds by inclusion: a missing bound is no limit.
    private static func bounds(old: (Double?, Double?), new: (Double?, Double?)) -> Self {
        func lower(_ old: Double?, _ new: Double?) -> Self {
            switch (old, new) {
            case (nil, nil): .same
            case (nil, _): .narrower
            case (_, nil): .wider
            case (let a?, let b?): a == b ? .same : (b > a ? .narrower : .wider)
            }
        }
        func upper(_ old: Double?, _ new: Double?) -> Self {
            lower(old.map { -$0 }, new.map { -$0 })
        }
        return lower(old.0, new.0).combined(with: upper(old.1, new.1))
    }
}
