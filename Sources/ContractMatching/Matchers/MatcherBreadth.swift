/// How a new matcher's accepted values relate to an old one's, for `contract diff`.
///
/// "Narrower" means every value the new matcher accepts the old one accepted too; "wider"
/// the reverse. Each kind says how it compares (``MatcherKind/breadth(becoming:compare:)``);
/// `contract diff` compares literals, objects and arrays, and asks the kinds.
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

    /// Bounds by inclusion (`min: 1` ⊂ `min: 0`): a missing bound is no limit.
    public static func bounds(old: (Double?, Double?), new: (Double?, Double?)) -> Self {
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

    /// ``bounds(old:new:)`` of counts.
    public static func counts(old: (Int?, Int?), new: (Int?, Int?)) -> Self {
        bounds(old: (old.0.map(Double.init), old.1.map(Double.init)), new: (new.0.map(Double.init), new.1.map(Double.init)))
    }
}
