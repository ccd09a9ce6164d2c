/// The `min`/`max` of a number, a length or a count, as kinds check and describe them.
enum Bounds {
    /// Whether `value` is within `min...max` (a missing bound is no limit).
    static func contain(_ value: Double, _ min: Double?, _ max: Double?) -> Bool {
        (min.map { value >= $0 } ?? true) && (max.map { value <= $0 } ?? true)
    }

    /// The bounds a kind writes after `match:` (`min: 1`), those it does not have left out.
    static func arguments(_ bounds: [(key: String, value: JSONValue?)]) -> [(key: String, value: MatcherArgument)] {
        bounds.compactMap { bound in bound.value.map { (bound.key, .value($0)) } }
    }

    /// ` from 1 to 5 characters`, ` of at least 1`, or nothing.
    static func text(_ min: Double?, _ max: Double?, unit: String = "") -> String {
        func text(_ value: Double) -> String {
            value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
        }
        switch (min, max) {
        case (let min?, let max?): return " from \(text(min)) to \(text(max))\(unit)"
        case (let min?, nil): return " of at least \(text(min))\(unit)"
        case (nil, let max?): return " of at most \(text(max))\(unit)"
        case (nil, nil): return ""
        }
    }
}
