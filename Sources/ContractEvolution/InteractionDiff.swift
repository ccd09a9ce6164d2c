import ContractKit

/// What changed inside one interaction between two versions, each change classified for a
/// client of the provider (see docs/contracts/18-diff.md, "What a change breaks").
///
/// - Requests: a JSON key, query parameter or header required anew breaks (clients do not
///   send it); a JSON key or query parameter dropped breaks (the stub refuses what the
///   contract does not list); a header dropped is safe; a matcher narrowed or changed
///   breaks, widened is safe; method, path or body kind changed breaks.
/// - Responses: the status, a key or header removed, or any matcher changed (narrowed,
///   widened or otherwise) breaks; a key or header added is safe (clients ignore unknown ones).
/// - Examples, `strict`, `given`, `save`: safe. Deliveries changed: breaking (their receiver may rely on them);
///   `after:` changed: breaking (a client test steps the old time).
///
/// ```swift
/// for change in InteractionDiff(file: "login.yaml", old: before, new: after).changes { print(change) }
/// ```
public struct InteractionDiff: Sendable {
    /// Which message a matcher is in: what a changed matcher means depends on who sends it.
    enum Side: String {
        case request, response
    }

    /// The changes found, in the order of the interaction's parts.
    public private(set) var changes: [ContractChange] = []

    private let file: String
    private let old: Interaction
    private let new: Interaction

    /// Compares `old` and `new`, two versions of one interaction of `file`.
    public init(file: String, old: Interaction, new: Interaction) {
        self.file = file
        self.old = old
        self.new = new
        compareRequests(old.request, new.request)
        compareResponses(old.response, new.response)
        compareTheRest()
    }

    mutating func note(_ impact: ContractChange.Impact, _ path: String, _ reason: String) {
        changes.append(
            ContractChange(
                kind: .changed, impact: impact, file: file, interaction: new.name, old: old.location, new: new.location, path: path,
                reason: reason)
        )
    }

    private mutating func compareRequests(_ old: RequestSpec, _ new: RequestSpec) {
        if old.method != new.method { note(.breaking, "request method", "\(old.method) → \(new.method): a different interaction") }
        if old.path.text != new.path.text {
            note(.breaking, "request path", "\(old.path.text) → \(new.path.text): a different route")
        } else {
            for name in new.path.parameterNames {
                if let before = old.path.params[name], let after = new.path.params[name] {
                    compare(before, after, at: "request path parameter \(name)", side: .request)
                }
            }
        }
        compareNamed(
            old.query.map { ($0.name, $0.value) }, new.query.map { ($0.name, $0.value) }, label: "request query", removal: .breaking)
        compareNamed(
            old.headers.map { ($0.name.lowercased(), $0.value) }, new.headers.map { ($0.name.lowercased(), $0.value) },
            label: "request header", removal: .safe
        )
        switch (old.body, new.body) {
        case (.none, .none): break
        case (.json(let before), .json(let after)): walk(before, after, at: "$", side: .request)
        case (.text(let before), .text(let after)):
            if before.text != after.text { note(.breaking, "request body", "text changed: the provider may not accept the old one") }
        case (.form(let before), .form(let after)): walk(before.objectMatcher, after.objectMatcher, at: "form", side: .request)
        case (.multipart(let before), .multipart(let after)):
            if before != after { note(.breaking, "request multipart", "parts changed: the provider may not accept the old ones") }
        default: note(.breaking, "request body", "\(Self.kind(of: old.body)) → \(Self.kind(of: new.body))")
        }
    }

    private mutating func compareNamed(
        _ old: [(String, Matcher)], _ new: [(String, Matcher)], label: String, removal: ContractChange.Impact
    ) {
        let before = Dictionary(old, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new, uniquingKeysWith: { first, _ in first })
        for name in Set(before.keys).union(after.keys).sorted() {
            switch (before[name], after[name]) {
            case (let a?, let b?): compare(a, b, at: "\(label) \(name)", side: .request)
            case (nil, .some): note(.breaking, "\(label) \(name)", "added: clients written against the old contract do not send it")
            case (.some, nil):
                note(
                    removal, "\(label) \(name)",
                    removal == .breaking
                        ? "removed: the provider may refuse it (the stub refuses what is not listed)" : "removed: no longer required"
                )
            case (nil, nil): break
            }
        }
    }

    private mutating func compareResponses(_ old: ResponseSpec, _ new: ResponseSpec) {
        if old.status != new.status { note(.breaking, "response status", "\(old.status) → \(new.status)") }
        for name in Set(old.headers.keys).union(new.headers.keys).sorted() {
            switch (old.headers[name], new.headers[name]) {
            case (let a?, let b?): compare(a, b, at: "response header \(name)", side: .response)
            case (nil, .some): note(.safe, "response header \(name)", "added: clients ignore headers they do not read")
            case (.some, nil): note(.breaking, "response header \(name)", "removed: a client may read it")
            case (nil, nil): break
            }
        }
        switch (old.body, new.body) {
        case (.unspecified, .unspecified): break
        case (.json(let before), .json(let after)): walk(before, after, at: "$", side: .response)
        case (.text(let before), .text(let after)): compare(before, after, at: "response body", side: .response)
        case (.form(let before), .form(let after)): walk(before.objectMatcher, after.objectMatcher, at: "form", side: .response)
        case (.unspecified, _): note(.safe, "response body", "now described (\(Self.kind(of: new.body)))")
        case (_, .unspecified): note(.breaking, "response body", "no longer described: a client may read it")
        default: note(.breaking, "response body", "\(Self.kind(of: old.body)) → \(Self.kind(of: new.body))")
        }
        if old.strict != new.strict {
            note(.safe, "response strict", "\(old.strict) → \(new.strict): matters to the provider only")
        }
        compareBrowserParts(old, new)
    }

    /// A redirect's parameters and a cookie are read like keys (added safe, removed
    /// breaking, a matcher changed as one); a cookie's attributes changed and a page check
    /// changed break (a browser acts on the one, a client test reads the other); a new page
    /// check is safe.
    private mutating func compareBrowserParts(_ old: ResponseSpec, _ new: ResponseSpec) {
        switch (old.location, new.location) {
        case (let before?, let after?):
            compare(before.url, after.url, at: "response location", side: .response)
            let beforeQuery = Dictionary(before.query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            let afterQuery = Dictionary(after.query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            for name in Set(beforeQuery.keys).union(afterQuery.keys).sorted() {
                let path = "response location.query.\(name)"
                switch (beforeQuery[name], afterQuery[name]) {
                case (let a?, let b?): compare(a, b, at: path, side: .response)
                case (nil, .some): note(.safe, path, "added: clients ignore parameters they do not read")
                case (.some, nil): note(.breaking, path, "removed: a client may read it")
                case (nil, nil): break
                }
            }
        case (nil, .some): note(.safe, "response location", "now described as a URL")
        case (.some, nil): note(.breaking, "response location", "no longer described: a client may follow it")
        case (nil, nil): break
        }
        for name in Set(old.cookies.keys).union(new.cookies.keys).sorted() {
            switch (old.cookies[name], new.cookies[name]) {
            case (let a?, let b?) where a != b: note(.breaking, "response cookie \(name)", "its value or attributes changed")
            case (nil, .some): note(.safe, "response cookie \(name)", "added: a browser keeps it, a client may ignore it")
            case (.some, nil): note(.breaking, "response cookie \(name)", "removed: a later request may need it")
            default: break
            }
        }
        let before = old.html.map(\.selector.description)
        let after = new.html.map(\.selector.description)
        for selector in Set(before).union(after).sorted() {
            let a = old.html.filter { $0.selector.description == selector }
            let b = new.html.filter { $0.selector.description == selector }
            if a.isEmpty {
                note(.safe, "response html '\(selector)'", "a page check added")
            } else if b.isEmpty {
                note(.breaking, "response html '\(selector)'", "a page check removed: a client may rely on it")
            } else if a != b {
                note(.breaking, "response html '\(selector)'", "a page check changed")
            }
        }
    }

    private mutating func compareTheRest() {
        if old.given != new.given {
            let names = { (uses: [ProviderStateUse]) in uses.isEmpty ? "none" : uses.map(\.state).joined(separator: ", ") }
            note(.safe, "given", "\(names(old.given)) → \(names(new.given))")
        }
        if old.save != new.save {
            let names = { (save: [String: SaveSource]) in save.isEmpty ? "none" : save.keys.sorted().joined(separator: ", ") }
            note(.safe, "save", "\(names(old.save)) → \(names(new.save))")
        }
        let unplaced = { (deliveries: [Delivery]) in
            deliveries.map {
                Delivery(
                    method: $0.method, path: $0.path, headers: $0.headers, body: $0.body, within: $0.within, save: $0.save,
                    location: SourceLocation(file: "", line: 0))
            }
        }
        if old.after != new.after {
            let text = { (after: Double?) in after.map { "after: \(JSONValue.numeric($0))s" } ?? "no time step" }
            note(
                .breaking, "after",
                "\(text(old.after)) → \(text(new.after)): the stub answers it after another time step, so a client test that steps the old one gets another answer"
            )
        }
        if unplaced(old.delivers) != unplaced(new.delivers) {
            note(.breaking, "delivers", "the messages sent elsewhere changed: their receiver may rely on them")
        }
    }

    private static func kind(of body: RequestBody) -> String {
        switch body {
        case .none: "no body"
        case .json: "JSON"
        case .text: "text"
        case .form: "form"
        case .multipart: "multipart"
        }
    }

    private static func kind(of body: ResponseBodySpec) -> String {
        switch body {
        case .unspecified: "nothing said"
        case .json: "JSON"
        case .text: "text"
        case .form: "form"
        }
    }
}
