import ContractKit
import Foundation
import WebForms

/// Writes contracts as a Pact file (specification v3) that the Pact verifier can replay
/// against the provider: interactions in contract order, provider states with their params,
/// requests as the verifier sends them, responses with matching rules carrying the
/// matchers as far as Pact can.
///
/// - Matchers become rules: `string` → `type` (or an anchored `regex` holding its length
///   bounds), `integer`, `number`, `null`, `boolean` → `type`, `regex`, `uuid`, `datetime` and
///   `jwt` → anchored `regex`, `each` → `type` with `min`/`max` and rules for its elements.
/// - A value saved by an earlier interaction (`{{refresh}}`) cannot be known in advance: in a
///   request it becomes a provider-state generator (`${refresh}`), and the interaction gets
///   the provider state ``savedValuesState``, whose set-up replays the interactions before it
///   in its contract and returns what they saved (`contract pact-states` serves it). In a
///   response, Pact checks only the shape of such a value.
/// - What Pact cannot check (numeric bounds, `strict`, a JWT's claims, `any`) is a
///   ``PactNote``.
///
/// ```swift
/// let suite = try ContractLoader.load(directory: "contracts")
/// let export = PactExporter(consumer: "ios-app", provider: "authd").export(suite.contracts)
/// try export.document.prettyText().write(toFile: "ios-app-authd.json", atomically: true, encoding: .utf8)
/// for note in export.notes { print(note) }   // "contracts/sessions.yaml:…: $.expires_in: Pact has no numeric bounds, …"
/// ```
public struct PactExporter: Sendable {
    /// What an export made.
    public struct Export: Sendable {
        /// The Pact file.
        public let document: JSONValue
        /// What Pact cannot check, per interaction.
        public let notes: [PactNote]
    }

    /// The provider state that sets up the values an interaction's request uses: its params
    /// name the contract and the interaction.
    public static let savedValuesState = "values saved by earlier interactions"

    /// The value of ``savedValuesState`` that holds the `Cookie` header a browser would send
    /// with the interaction's request (the cookies its file's earlier answers set), which the
    /// export has the verifier send through a provider-state generator.
    public static let sequenceCookies = "sequence_cookies"

    /// `consumer.name`.
    public var consumer: String
    /// `provider.name`.
    public var provider: String

    /// Creates an exporter.
    public init(consumer: String, provider: String) {
        self.consumer = consumer
        self.provider = provider
    }

    /// The Pact file for `contracts`, and the notes.
    public func export(_ contracts: [Contract]) -> Export {
        var interactions: [JSONValue] = []
        var notes: [PactNote] = []
        var descriptions = Set<String>()
        for contract in contracts {
            let saved = contract.savedMatchers
            for interaction in contract.interactions {
                // A URL known only when the run saves it (a discovery document's endpoint) is no Pact path.
                if let name = interaction.request.path.savedURL {
                    notes.append(
                        PactNote(
                            file: contract.file, interaction: interaction.name,
                            message: "left out: its request goes to the URL saved as '\(name)', which Pact's path cannot hold"))
                    continue
                }
                var description = interaction.name
                if descriptions.contains(description) { description = "\(interaction.name) (\(contract.name))" }
                description = Contract.freeName(description, separator: " ") { descriptions.contains($0) }
                descriptions.insert(description)
                let (value, messages) = Self.interaction(interaction, of: contract, description: description, saved: saved)
                interactions.append(value)
                notes += messages.map { PactNote(file: contract.file, interaction: interaction.name, message: $0) }
                // A Pact HTTP interaction has one request and one response: nothing carries a side message.
                notes += interaction.delivers.map { delivery in
                    PactNote(
                        file: contract.file, interaction: interaction.name,
                        message:
                            "delivers \(delivery.summary) dropped: a Pact HTTP interaction cannot carry a delivery to another receiver (contract verify still checks it)"
                    )
                }
            }
        }
        let document: JSONValue = [
            "consumer": ["name": .string(consumer)],
            "provider": ["name": .string(provider)],
            "interactions": .array(interactions),
            "metadata": ["pactSpecification": ["version": "3.0.0"]],
        ]
        return Export(document: document, notes: notes)
    }

    static func interaction(_ interaction: Interaction, of contract: Contract, description: String, saved: [String: Matcher]) -> (
        JSONValue, [String]
    ) {
        var states: [JSONValue] = []
        // A browser sends the cookies the file's earlier answers set: the state's replay has them.
        let earlier = contract.interactions.prefix { $0 != interaction }
        let sendsCookies =
            earlier.contains { !$0.response.cookies.isEmpty } && firstHeader("Cookie", in: interaction.request.headers) == nil
        // The state replays what comes before (for the saved values and cookies) and steps the clock (after:).
        if !interaction.request.variables.isEmpty || interaction.after != nil || sendsCookies {
            states.append([
                "name": .string(savedValuesState),
                "params": ["contract": .string(contract.name), "interaction": .string(interaction.name)],
            ])
        }
        for use in interaction.given {
            states.append(use.params.isEmpty ? ["name": .string(use.state)] : ["name": .string(use.state), "params": .object(use.params)])
        }
        var requestWriter = PactMessageWriter(side: .request, saved: saved)
        var responseWriter = PactMessageWriter(side: .response, saved: saved)
        var value: [String: JSONValue] = [
            "description": .string(description),
            "request": .object(request(interaction.request, writer: &requestWriter, cookies: sendsCookies ? earlier.map(\.response) : nil)),
            "response": .object(response(interaction.response, writer: &responseWriter)),
        ]
        if !states.isEmpty { value["providerStates"] = .array(states) }
        return (.object(value), requestWriter.notes.map { "request \($0)" } + responseWriter.notes.map { "response \($0)" })
    }

    // MARK: - Request

    /// `cookies`: the earlier answers of the file when the request goes with the cookies they
    /// set (a `Cookie` header the state's replay fills), nil otherwise.
    static func request(_ spec: RequestSpec, writer: inout PactMessageWriter, cookies: [ResponseSpec]? = nil) -> [String: JSONValue] {
        var request: [String: JSONValue] = ["method": .string(spec.method)]
        var rules: [String: JSONValue] = [:]
        var generators: [String: JSONValue] = [:]
        if spec.followRedirects {
            writer.note(
                "follow_redirects: Pact follows them too, but carries no cookie from one to the next, so a sign-in that needs the browser's cookie there fails it (contract verify keeps them)"
            )
        }
        // A sequence's cookies are the jar's, which Pact has not: each request is sent alone.

        let path = self.path(spec.path, writer: writer)
        request["path"] = .string(path.example)
        if let rule = path.rule { rules["path"] = PactMessageWriter.ruleList([rule]) }
        if let generator = path.generator { generators["path"] = generator }

        if !spec.query.isEmpty {
            var query: [String: JSONValue] = [:]
            var queryRules: [String: JSONValue] = [:]
            var queryGenerators: [String: JSONValue] = [:]
            for (name, matcher) in spec.query {
                let placed = writer.text(matcher, at: "query parameter \(name)")
                if case .array(let values)? = query[name] {
                    query[name] = .array(values + [.string(placed.example)])
                } else {
                    query[name] = [.string(placed.example)]
                }
                if !placed.rules.isEmpty { queryRules[name] = PactMessageWriter.ruleList(placed.rules) }
                queryGenerators[name] = placed.generator
            }
            request["query"] = .object(query)
            if !queryRules.isEmpty { rules["query"] = .object(queryRules) }
            if !queryGenerators.isEmpty { generators["query"] = .object(queryGenerators) }
        }

        var headers: [String: JSONValue] = [:]
        var headerRules: [String: JSONValue] = [:]
        var headerGenerators: [String: JSONValue] = [:]
        for (name, matcher) in spec.headers {
            let placed = writer.text(matcher, at: "header \(name)")
            headers[name] = .string(placed.example)
            headerRules.merge(self.headerRules(name, matcher, placed.example, placed.rules, writer: &writer)) { _, new in new }
            headerGenerators[name] = placed.generator
        }

        switch spec.body {
        case .none:
            break
        case .json(let matcher):
            // As `contract verify` sends it: a JSON body says so unless the contract sets a type.
            if firstHeader("Content-Type", in: spec.headers) == nil {
                headers["Content-Type"] = "application/json"
            }
            if let body = writer.body(matcher) {
                request["body"] = body
            } else {
                writer.note("body may be any JSON value: Pact needs one, so none is sent")
            }
        case .text(let template):
            let text = writer.exampleText(template)
            let contentType = firstHeader("Content-Type", in: spec.headers).map {
                $0.pactExample.text
            }
            // Pact reads a string body of a JSON request as a JSON string: JSON text goes as its value.
            if contentType?.lowercased().contains("json") == true, template.variables.isEmpty,
                let json = try? JSONValue(parsing: Data(text.utf8))
            {
                request["body"] = json
            } else {
                request["body"] = .string(text)
            }
            if !template.variables.isEmpty {
                writer.note(
                    "the text body holds saved values: Pact generates none in a text body, so it is sent with examples in their place")
            }
        case .form(let form):
            // As `contract verify` sends it: a form body says so unless the contract sets a type.
            if firstHeader("Content-Type", in: spec.headers) == nil {
                headers["Content-Type"] = .string(FormBody.contentType)
            }
            request["body"] = formBody(form, rules: &rules, writer: &writer)
        case .multipart:
            writer.note("the multipart body has no Pact equivalent here: it is left out")
        }
        if let cookies {
            var names: [String] = []
            for name in cookies.flatMap({ $0.cookies.keys.sorted() }) where !names.contains(name) { names.append(name) }
            headers["Cookie"] = .string(names.map { "\($0)=stub-\($0)" }.joined(separator: "; "))
            headerGenerators["Cookie"] = ["type": "ProviderState", "expression": .string("${\(sequenceCookies)}")]
        }
        if !headers.isEmpty { request["headers"] = .object(headers) }
        if !headerRules.isEmpty { rules["header"] = .object(headerRules) }
        if !headerGenerators.isEmpty { generators["header"] = .object(headerGenerators) }
        addBody(writer, rules: &rules, generators: &generators)
        if !rules.isEmpty { request["matchingRules"] = .object(rules) }
        if !generators.isEmpty { request["generators"] = .object(generators) }
        return request
    }

    /// The example path; a `regex` rule when it has `{name}` parameters or saved values (any
    /// segment there); a provider-state generator when it holds saved values.
    static func path(_ path: RequestPath, writer: PactMessageWriter) -> (example: String, rule: JSONValue?, generator: JSONValue?) {
        var example = ""
        var pattern = ""
        var expression = ""
        var usesVariables = false
        for segment in path.segments {
            example += "/"
            pattern += "/"
            expression += "/"
            switch segment {
            case .text(let template):
                usesVariables = usesVariables || !template.variables.isEmpty
                example += writer.exampleText(template)
                pattern += PactMessageWriter.pattern(template, variables: "[^/]+")
                expression += PactMessageWriter.expression(template)
            case .parameter(let name):
                let value = path.params[name].map { $0.pactExample.text } ?? name
                let encoded = value.addingPercentEncoding(withAllowedCharacters: RequestPath.segmentAllowed) ?? value
                example += encoded
                pattern += "[^/]+"
                expression += encoded
            }
        }
        if path.segments.isEmpty { example = "/" }
        let rule = path.params.isEmpty && !usesVariables ? nil : PactMatchingRule.regex(pattern)
        let generator: JSONValue? = usesVariables ? ["type": "ProviderState", "expression": .string(expression)] : nil
        return (example, rule, generator)
    }

    // MARK: - Response

    static func response(_ spec: ResponseSpec, writer: inout PactMessageWriter) -> [String: JSONValue] {
        var response: [String: JSONValue] = ["status": .integer(spec.status)]
        var rules: [String: JSONValue] = [:]
        var headers: [String: JSONValue] = [:]
        var headerRules: [String: JSONValue] = [:]
        for name in spec.headers.keys.sorted() {
            guard let matcher = spec.headers[name] else { continue }
            let written = headerName(name)
            let placed = writer.text(matcher, at: "header \(written)")
            headers[written] = .string(placed.example)
            headerRules.merge(self.headerRules(written, matcher, placed.example, placed.rules, writer: &writer)) { _, new in new }
        }
        switch spec.body {
        case .unspecified:
            break
        case .json(let matcher):
            if let body = writer.body(matcher) { response["body"] = body }
            if spec.strict { writer.note("is strict: Pact allows keys the contract does not list") }
        case .text(let matcher):
            let placed = writer.text(matcher, at: "body")
            response["body"] = .string(placed.example)
            if !placed.rules.isEmpty { rules["body"] = ["$": PactMessageWriter.ruleList(placed.rules)] }
        case .form(let form):
            if spec.headers["content-type"] == nil { headers["Content-Type"] = .string(FormBody.contentType) }
            response["body"] = formBody(form, rules: &rules, writer: &writer)
        }
        addBrowserParts(of: spec, headers: &headers, headerRules: &headerRules, writer: &writer)
        if !headers.isEmpty { response["headers"] = .object(headers) }
        if !headerRules.isEmpty { rules["header"] = .object(headerRules) }
        var generators: [String: JSONValue] = [:]
        addBody(writer, rules: &rules, generators: &generators)
        if !rules.isEmpty { response["matchingRules"] = .object(rules) }
        return response
    }

    /// A response's `location`, `cookies` and `html` as far as Pact goes: `Location` is one
    /// header whose example is the URL with each parameter's example, checked by a regex of the
    /// URL before the query; the first cookie's `Set-Cookie` example (Pact keeps one value per
    /// header), checked to start with its name; page checks are left to the body's matcher. A
    /// note says each of these.
    private static func addBrowserParts(
        of spec: ResponseSpec, headers: inout [String: JSONValue], headerRules: inout [String: JSONValue], writer: inout PactMessageWriter
    ) {
        if let location = spec.location, spec.headers["location"] == nil {
            let example = (try? location.built { matcher, place in writer.text(matcher, at: place).example }) ?? ""
            headers["Location"] = .string(example)
            let base = LocationSpec.parts(of: example).url
            let pattern: String
            if case .literal(.string(let url)) = location.url.kind, !Template.mayHavePlaceholders(url) {
                pattern = NSRegularExpression.escapedPattern(for: base) + "(\\?.*)?"
            } else {
                pattern = ".*"
            }
            headerRules["Location"] = PactMessageWriter.ruleList([PactMatchingRule.regex(pattern)])
            if !location.query.isEmpty {
                writer.note("location's query parameters are one header to Pact: it checks the URL before the query, not each parameter")
            }
            if (300..<400).contains(spec.status) {
                writer.note(
                    "is a redirect: Pact follows it, as its verifier's HTTP client follows redirects, so the verifier checks where it leads (an app's redirect URI it cannot reach) instead (contract verify checks the redirect)"
                )
            }
        }
        if let name = spec.cookies.keys.sorted().first, let cookie = spec.cookies[name] {
            let example = (try? cookie.header(name: name) { matcher, place in .string(writer.text(matcher, at: place).example) }) ?? name
            headers["Set-Cookie"] = .string(example)
            headerRules["Set-Cookie"] = PactMessageWriter.ruleList([
                PactMatchingRule.regex(NSRegularExpression.escapedPattern(for: name) + "=.*")
            ])
            writer.note(
                "cookies are one Set-Cookie header to Pact: it checks that \(name) is set, not its attributes"
                    + (spec.cookies.count > 1 ? " nor the other cookies" : ""))
        }
        if !spec.html.isEmpty {
            writer.note("html: Pact has no page checks: it matches the body's matcher only")
        }
    }

    /// A form body as Pact writes one: the encoded text of the fields' examples, and each
    /// field's rules and provider-state generator (a saved value) at `$.NAME` (Pact matches
    /// and fills form fields by those paths).
    private static func formBody(_ form: FormBody, rules: inout [String: JSONValue], writer: inout PactMessageWriter) -> JSONValue {
        var fieldRules: [String: JSONValue] = [:]
        let fields = form.fields.map { field -> (name: String, value: String) in
            let placed = writer.text(field.value, at: "form field \(field.name)")
            if !placed.rules.isEmpty { fieldRules["$." + field.name] = PactMessageWriter.ruleList(placed.rules) }
            if let generator = placed.generator { writer.addBodyGenerator(generator, at: "$." + field.name) }
            if field.value.optional { writer.note("form field \(field.name) is optional: Pact sends it always") }
            return (field.name, placed.example)
        }
        if !fieldRules.isEmpty { rules["body"] = .object(fieldRules) }
        return .string(FormEncoding.encode(fields))
    }

    /// The writer's body rules and generators, in their categories.
    private static func addBody(_ writer: PactMessageWriter, rules: inout [String: JSONValue], generators: inout [String: JSONValue]) {
        if !writer.bodyRules.isEmpty {
            var body: [String: JSONValue] = [:]
            for (path, list) in writer.bodyRules { body[path] = PactMessageWriter.ruleList(list) }
            rules["body"] = .object(body)
        }
        if !writer.bodyGenerators.isEmpty {
            var body: [String: JSONValue] = [:]
            for (path, generator) in writer.bodyGenerators { body[path] = generator }
            generators["body"] = .object(body)
        }
    }

    /// A header's rules, keyed as Pact reads them. Pact splits a header's value at commas and
    /// matches each part on its own, so a `regex` whose example holds commas is split at its
    /// own top-level commas into a rule per part (`Cache-Control[0]`, `Cache-Control[1]`) when
    /// each part of the example matches its part of the pattern; otherwise each part is only
    /// checked to be there.
    static func headerRules(_ name: String, _ matcher: Matcher, _ example: String, _ rules: [JSONValue], writer: inout PactMessageWriter)
        -> [String: JSONValue]
    {
        guard !rules.isEmpty else { return [:] }
        guard example.contains(",") else { return [name: PactMessageWriter.ruleList(rules)] }
        let exampleParts = example.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if let pattern = matcher.kind.as(RegexMatcher.self)?.pattern, let parts = topLevelParts(pattern), parts.count == exampleParts.count,
            zip(parts, exampleParts).allSatisfy({ part, text in (try? Regex(part).wholeMatch(in: text)) != nil })
        {
            var split: [String: JSONValue] = [:]
            for (index, part) in parts.enumerated() {
                split["\(name)[\(index)]"] = PactMessageWriter.ruleList([PactMatchingRule.regex(PactMatchingRule.dotMatchesAll(part))])
            }
            return split
        }
        writer.note("header \(name): Pact matches each comma-separated part of it alone, so only its presence is checked")
        return [name: PactMessageWriter.ruleList([PactMatchingRule.named("type")])]
    }

    /// The parts of `pattern` between its top-level commas (outside groups, classes and
    /// escapes), trimmed; nil when it has a top-level alternation.
    static func topLevelParts(_ pattern: String) -> [String]? {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var escaped = false
        var inClass = false
        for character in pattern {
            if escaped {
                escaped = false
            } else if inClass {
                if character == "\\" { escaped = true } else { inClass = character != "]" }
            } else if character == "," && depth == 0 {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            } else {
                switch character {
                case "\\": escaped = true
                case "[": inClass = true
                case "(": depth += 1
                case ")": depth -= 1
                case "|" where depth == 0: return nil
                default: break
                }
            }
            current.append(character)
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }

    /// `cache-control` → `Cache-Control` (contracts keep response header names lower-cased).
    static func headerName(_ name: String) -> String {
        let written = name.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined(separator: "-")
        return written.hasPrefix("Www-") ? "WWW-" + written.dropFirst(4) : written
    }
}
