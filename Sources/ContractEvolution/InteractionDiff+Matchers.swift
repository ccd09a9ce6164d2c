import ContractKit

extension InteractionDiff {
    /// Compares two JSON matcher trees key by key: objects by their keys, arrays by their
    /// elements, `each` by its count and its element (`[*]`), a JWT by its claims; anything
    /// else with ``compare(_:_:at:side:)``.
    mutating func walk(_ old: Matcher, _ new: Matcher, at path: String, side: Side) {
        switch (old.kind, new.kind) {
        case (.object(let before), .object(let after)):
            for key in Set(before.keys).union(after.keys).sorted() {
                let child = Matcher.childPath(path, key)
                switch (before[key], after[key], side) {
                case (let a?, let b?, _):
                    optionality(a, b, at: child, side: side)
                    walk(a.optional(false), b.optional(false), at: child, side: side)
                case (nil, let b?, .request) where b.optional:
                    note(.safe, "request \(child)", "optional field added: old requests without it still match")
                case (nil, .some, .request):
                    note(.breaking, "request \(child)", "required field added: clients written against the old contract do not send it")
                case (let a?, nil, .response) where a.optional:
                    note(.safe, "response \(child)", "optional key removed: clients already cope without it")
                case (nil, .some, .response): note(.safe, "response \(child)", "key added: clients ignore keys they do not read")
                case (.some, nil, .request):
                    note(.breaking, "request \(child)", "field removed: the provider may refuse it (the stub refuses keys not listed)")
                case (.some, nil, .response): note(.breaking, "response \(child)", "key removed: a client may read it")
                case (nil, nil, _): break
                }
            }
        case (.array(let before), .array(let after)) where before.count == after.count:
            for (index, pair) in zip(before, after).enumerated() { walk(pair.0, pair.1, at: "\(path)[\(index)]", side: side) }
        case (.typed(let before as EachMatcher), .typed(let after as EachMatcher)):
            let any = Matcher(.any)
            compare(
                Matcher(.each(of: any, min: before.min, max: before.max)), Matcher(.each(of: any, min: after.min, max: after.max)),
                at: "\(side.rawValue) \(path)", side: side, describe: false)
            walk(before.element, after.element, at: "\(path)[*]", side: side)
        case (.typed(let before as JWTMatcher), .typed(let after as JWTMatcher)):
            walk(Matcher(.object(before.claims)), Matcher(.object(after.claims)), at: path, side: side)
        default:
            compare(old, new, at: "\(side.rawValue) \(path)", side: side)
        }
    }

    /// A key made optional or required: in a request, optional is safe and required breaks;
    /// in a response, a key that may now be absent breaks (a client may read it) and one now
    /// always there is safe.
    private mutating func optionality(_ old: Matcher, _ new: Matcher, at path: String, side: Side) {
        switch (old.optional, new.optional, side) {
        case (false, true, .request): note(.safe, "request \(path)", "now optional: old requests still match")
        case (true, false, .request):
            note(.breaking, "request \(path)", "now required: clients written against the old contract may not send it")
        case (false, true, .response): note(.breaking, "response \(path)", "now optional: a client may read it and find nothing")
        case (true, false, .response): note(.safe, "response \(path)", "now always present: clients already cope with it there")
        default: break
        }
    }

    /// Classifies one matcher's change (see ``MatcherBreadth``): in a request, narrowed or
    /// changed breaks and widened is safe; in a response any change breaks (widened: clients
    /// see values they did not expect; narrowed or changed: what they were promised is not
    /// what comes, and when unsure it counts as breaking). An example alone changed is safe.
    mutating func compare(_ old: Matcher, _ new: Matcher, at path: String, side: Side, describe: Bool = true) {
        let breadth = MatcherBreadth(old: old, new: new)
        let what = describe ? "\(old.summary) → \(new.summary)" : "count bounds changed"
        switch (breadth, side) {
        case (.same, _):
            if old.example != new.example { note(.safe, path, "example changed") }
        case (.wider, .request): note(.safe, path, "\(what) (widened: old requests still match)")
        case (.narrower, .request): note(.breaking, path, "\(what) (narrowed: some old requests no longer match)")
        case (.different, .request): note(.breaking, path, "\(what) (changed)")
        case (.wider, .response): note(.breaking, path, "\(what) (widened: clients may see values they did not expect)")
        case (.narrower, .response):
            note(
                .breaking, path,
                "\(what) (narrowed: the stub now answers otherwise and a client may rely on the old values; when unsure, breaking)")
        case (.different, .response): note(.breaking, path, "\(what) (changed)")
        }
    }
}
