/// `{ match: form_post, action: URL, fields: {…} }`: an HTML page that posts itself to
/// `action` at once, the answer of an authorization request with `response_mode=form_post`
/// (OAuth 2.0 Form Post Response Mode §2): a `form` with `method="post"` to that action, a
/// hidden input per field whose value matches the field's matcher (fields not listed are
/// free), and a script that submits it. The stub answers such a page; a value in it is saved
/// as from any page (`response.html.input[name=code]@value`).
///
/// ```yaml
/// body:
///   match: form_post
///   action: "http://127.0.0.1:9999/callback"
///   fields: { code: { match: string, min_length: 1, example: SplxlOBeZQQYbYS6WxSbIA }, state: "{{state}}", iss: authd }
/// ```
public struct FormPostMatcher: MatcherKind {
    /// Where the form posts.
    public var action: Matcher
    /// The hidden inputs, by name.
    public var fields: [String: Matcher]

    public init(action: Matcher, fields: [String: Matcher]) {
        self.action = action
        self.fields = fields
    }

    public static let names = ["form_post"]
    public static func parameters(of name: String) -> [String] { ["action", "fields"] }
    public static var takesExample: Bool { false }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        guard arguments.require("action", of: name, "the URL the page posts to"),
            let action = arguments.matcher("action", as: "the form_post action", member: false, text: true)
        else { return nil }
        let fields = arguments.has("fields") ? arguments.members("fields", as: { "field '\($0)'" }) : [:]
        return fields.map { Self(action: action, fields: $0) }
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        [("action", .matcher(action))] + (fields.isEmpty ? [] : [("fields", .members(fields))])
    }
    public var children: [Matcher] { [action] + fields.keys.sorted().compactMap { fields[$0] } }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self {
        Self(action: transform(action), fields: fields.mapValues(transform))
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual else { return check(false, actual, at: path) }
        let page = HTMLDocument(parsing: text)
        let forms = page.elements.indices.filter {
            page.elements[$0].name == "form" && page.elements[$0].attributes["method"]?.lowercased() == "post"
        }
        guard forms.count == 1, let form = forms.first else {
            return [Mismatch(path: path, expected: "a page with one form that posts", actual: "\(forms.count) such forms")]
        }
        var found = action.mismatches(inText: page.elements[form].attributes["action"] ?? "", at: "\(path) form action")
        var values: [String: String] = [:]
        for index in page.elements.indices where index > form && index < page.elements[form].descendantsEnd {
            let element = page.elements[index]
            guard element.name == "input", element.attributes["type"]?.lowercased() == "hidden", let name = element.attributes["name"]
            else {
                continue
            }
            values[name] = element.attributes["value"] ?? ""
        }
        for name in fields.keys.sorted() {
            guard let field = fields[name] else { continue }
            guard let value = values[name] else {
                if !field.optional {
                    found.append(Mismatch(path: "\(path) field \(name)", expected: field.summary, actual: "no such field"))
                }
                continue
            }
            found += field.mismatches(inText: value, at: "\(path) field \(name)")
        }
        let posts = page.elements.indices.contains { page.elements[$0].name == "script" && page.text(of: $0).contains(".submit()") }
        if !posts { found.append(Mismatch(path: path, expected: "a script that submits the form", actual: "none")) }
        return found
    }

    public var summary: String { "a page that posts \(fields.keys.sorted().joined(separator: ", ")) to \(action.summary)" }
    public var jsonType: String? { "string" }
    public var specificity: Int { 4 }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        var inputs = ""
        for name in fields.keys.sorted() {
            guard let field = fields[name] else { continue }
            let value = try context.sample(field, at: "\(path) field \(name)").text
            inputs += "<input type=\"hidden\" name=\"\(name.markupEscaped)\" value=\"\(value.markupEscaped)\">\n"
        }
        let target = try context.sample(action, at: "\(path) action").text
        return .string(
            """
            <!DOCTYPE html>
            <html lang="en"><title>Continue</title><main><form method="post" action="\(target.markupEscaped)" id="response">
            \(inputs)</form><script>document.getElementById("response").submit();</script></main></html>

            """)
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        [
            "type": "string",
            "description": .string(
                "An HTML page that posts \(fields.keys.sorted().joined(separator: ", ")) to the client's redirect URI at once (OAuth 2.0 Form Post Response Mode)."
            ),
        ]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.note("\(path) is a page that posts itself: Pact checks that it holds a form, not its action nor its fields")
        pact.addRules([PactMatchingRule.regex(PactMatchingRule.dotMatchesAll("(?s).*<form.*"))], at: path)
        var scratch = PactScratch()
        let fields = self.fields.mapValues { scratch.value($0, at: "$", cascaded: false)?.text ?? "" }
        let target = scratch.value(action, at: "$", cascaded: false)?.text ?? ""
        return .string(
            "<form method=\"post\" action=\"\(target.markupEscaped)\">"
                + fields.keys.sorted().map { "<input type=\"hidden\" name=\"\($0)\" value=\"\((fields[$0] ?? "").markupEscaped)\">" }
                .joined()
                + "</form><script>document.forms[0].submit();</script>")
    }
}

extension Matcher.Kind {
    /// A page that posts `fields` to `action` at once (``FormPostMatcher``).
    public static func formPost(action: Matcher, fields: [String: Matcher]) -> Self {
        .typed(FormPostMatcher(action: action, fields: fields))
    }
}
