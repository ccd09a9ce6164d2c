/// What a page must hold (`html:` in a response, a list): the elements a CSS selector finds
/// (`HTMLSelector`), at least one of which has the listed attributes and text; with `count`,
/// exactly that many are found.
///
/// ```yaml
/// response:
///   html:
///     - select: html
///       attributes: { lang: en }
///     - select: 'input[name="password"]'
///       attributes: { autocomplete: current-password }
///     - select: h1
///       text: Sign in
///     - select: 'form[action^="/authorize/sign-in"]'
///       count: 1
/// ```
public struct HTMLAssertion: Sendable, Equatable {
    /// Which elements.
    public let selector: HTMLSelector
    /// Attribute matchers by lower-cased name (a matcher of text each; `optional: true` allows absence).
    public let attributes: [String: Matcher]
    /// The elements' text (white space collapsed), a matcher of text; nil: any.
    public let text: Matcher?
    /// How many elements it must find; nil: at least one.
    public let count: Int?

    public init(selector: HTMLSelector, attributes: [String: Matcher] = [:], text: Matcher? = nil, count: Int? = nil) {
        self.selector = selector
        self.attributes = attributes
        self.text = text
        self.count = count
    }

    /// This assertion with `{{name}}`s filled from `variables`.
    public func resolved(with variables: [String: JSONValue], undefined: inout [String]) -> HTMLAssertion {
        HTMLAssertion(
            selector: selector, attributes: attributes.mapValues { $0.resolved(with: variables, undefined: &undefined) },
            text: text?.resolved(with: variables, undefined: &undefined), count: count)
    }

    /// Every `{{name}}` it uses.
    public var templateVariables: [String] {
        attributes.keys.sorted().flatMap { attributes[$0]?.templateVariables ?? [] } + (text?.templateVariables ?? [])
    }

    /// Every way `page` breaks it, at `html 'SELECTOR'`: the count, or, when no element found
    /// has the attributes and text, the ways the first one found does not.
    public func mismatches(in page: HTMLDocument) -> [Mismatch] {
        let place = "html '\(selector)'"
        let found = page.select(selector)
        if let count, found.count != count {
            return [Mismatch(path: place, expected: "\(count) element\(count == 1 ? "" : "s")", actual: "\(found.count)")]
        }
        guard let first = found.first else {
            return count == 0 ? [] : [Mismatch(path: place, expected: "an element", actual: "none")]
        }
        guard !attributes.isEmpty || text != nil else { return [] }
        func problems(_ index: Int) -> [Mismatch] {
            let element = page.elements[index]
            var problems: [Mismatch] = []
            for name in attributes.keys.sorted() {
                guard let matcher = attributes[name] else { continue }
                guard let value = element.attributes[name] else {
                    if !matcher.optional {
                        problems.append(Mismatch(path: "\(place) [\(name)]", expected: matcher.summary, actual: "no such attribute"))
                    }
                    continue
                }
                problems += matcher.mismatches(inText: value, at: "\(place) [\(name)]")
            }
            if let text { problems += text.mismatches(inText: page.text(of: index), at: "\(place) text") }
            return problems
        }
        if found.contains(where: { problems($0).isEmpty }) { return [] }
        return problems(first)
    }
}

/// Where a value is saved from on a page (`save: { csrf: 'response.html.input[name=csrf]@value' }`):
/// the first element a selector finds, and one of its attributes, or its text (`@text`).
public struct HTMLValueSource: Sendable, Hashable, CustomStringConvertible {
    public let selector: HTMLSelector
    /// The attribute, lower-cased; nil for the element's text.
    public let attribute: String?

    public init(selector: HTMLSelector, attribute: String?) {
        self.selector = selector
        self.attribute = attribute
    }

    /// Reads `SELECTOR@ATTRIBUTE` or `SELECTOR@text`.
    /// - Throws: `JSONPath.Invalid` with the reason.
    public init(_ text: String) throws {
        guard let at = text.lastIndex(of: "@") else {
            throw JSONPath.Invalid(description: "'response.html.\(text)' must end with @ATTRIBUTE or @text (input[name=csrf]@value)")
        }
        let name = text[text.index(after: at)...].lowercased()
        guard !name.isEmpty else { throw JSONPath.Invalid(description: "a name of an attribute, or text, must follow '@'") }
        do {
            selector = try HTMLSelector(String(text[..<at]))
        } catch {
            throw JSONPath.Invalid(description: "\(error)")
        }
        attribute = name == "text" ? nil : name
    }

    public var description: String { "\(selector)@\(attribute ?? "text")" }

    /// The value on `page`, nil when no element is found or it lacks the attribute.
    public func value(in page: HTMLDocument) -> String? {
        guard let first = page.select(selector).first else { return nil }
        guard let attribute else { return page.text(of: first) }
        return page.elements[first].attributes[attribute]
    }
}
