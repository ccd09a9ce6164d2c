import ContractKit
import Foundation
import WebForms

/// Converts the interactions of one Pact file, collecting notes on what does not carry over.
struct PactInteractionConverter {
    let file: String
    let version: String
    private(set) var notes: [PactNote] = []
    private var current = ""

    init(file: String, version: String) {
        self.file = file
        self.version = version
    }

    private var isV4: Bool { version.hasPrefix("4") }

    private mutating func note(_ message: String) {
        notes.append(PactNote(file: file, interaction: current, message: message))
    }

    mutating func interaction(_ value: JSONValue, index: Int) -> Interaction? {
        current = value["description"]?.stringValue ?? "interaction \(index + 1)"
        if let type = value["type"]?.stringValue, type != "Synchronous/HTTP" {
            note("a \(type) interaction is not a synchronous HTTP one: not imported")
            return nil
        }
        guard case .object(let requestObject)? = value["request"], case .object(let responseObject)? = value["response"] else {
            note("no request or response: not imported")
            return nil
        }
        var given: [ProviderStateUse] = []
        if case .array(let states)? = value["providerStates"] {
            for state in states {
                guard let name = state["name"]?.stringValue else { continue }
                let params: [String: JSONValue] = if case .object(let params)? = state["params"] { params } else { [:] }
                given.append(ProviderStateUse(state: name, params: params))
            }
        } else if let state = value["providerState"]?.stringValue ?? value["provider_state"]?.stringValue {
            given.append(ProviderStateUse(state: state, params: [:]))
        }
        // v2 keeps the rules beside the request; v3 and v4 inside it.
        let requestRules = PactRuleBook(requestObject["matchingRules"])
        let responseRules = PactRuleBook(responseObject["matchingRules"])
        for unreadable in requestRules.unreadable + responseRules.unreadable {
            note("matching rule path '\(unreadable)' is not understood: ignored")
        }
        noteGenerators(requestObject["generators"], side: "request")
        noteGenerators(responseObject["generators"], side: "response")
        if value["pending"] == .bool(true) { note("the interaction is pending in Pact: imported as a contract that must hold") }

        guard let request = request(requestObject, rules: requestRules) else { return nil }
        guard let response = response(responseObject, rules: responseRules) else { return nil }
        return Interaction(
            name: current, location: SourceLocation(file: file, line: 0), given: given, request: request, response: response, save: [:])
    }

    // MARK: - Request

    private mutating func request(_ object: [String: JSONValue], rules: PactRuleBook) -> RequestSpec? {
        let method = (object["method"]?.stringValue ?? "GET").uppercased()
        let rawPath = object["path"]?.stringValue ?? "/"
        guard let path = requestPath(rawPath, rules: rules.path) else {
            note("the path \(rawPath) cannot be written in a contract: not imported")
            return nil
        }
        var query: [(name: String, value: Matcher)] = []
        for (name, values) in queryItems(object["query"]) {
            if values.count > 1 { note("query parameter '\(name)' has \(values.count) values: the first is kept") }
            let value = values.first ?? ""
            query.append((name, textMatcher(value, rules: rules.query[name], at: "query \(name)")))
        }
        var headers: [(name: String, value: Matcher)] = []
        for (name, value) in headerItems(object["headers"]) {
            headers.append((name, textMatcher(value, rules: rules.headers[name.lowercased()], at: "header \(name)")))
        }
        let contentType = firstHeader("Content-Type", in: headers).flatMap {
            if case .literal(.string(let text)) = $0.kind { text } else { nil }
        }
        var body = RequestBody.none
        switch self.body(object["body"], contentType: contentType) {
        case .none: break
        case .json(let value): body = .json(jsonMatcher(value, rules: rules))
        case .text(let text, let type):
            if let form = form(text, contentType: type, rules: rules) {
                body = .form(form)
                break
            }
            if Template.mayHavePlaceholders(text) { note("the request body holds '{{', which contracts read as a placeholder") }
            body = .text(Template(text))
        }
        return RequestSpec(method: method, path: path, query: query, headers: headers, body: body)
    }

    /// The path; a regex rule on it becomes `{name}` segments when the regex is the path with
    /// some segments replaced by patterns, else a note and the literal path.
    private mutating func requestPath(_ text: String, rules: (rules: [PactRule], combine: String)?) -> RequestPath? {
        guard text.hasPrefix("/"), let literal = try? RequestPath(Self.escapedPath(text)) else { return nil }
        guard let rules, let rule = rules.rules.first else { return literal }
        guard rule.kind == "regex", let pattern = rule.string("regex") else {
            note("a '\(rule.kind)' rule on the path has no equivalent: the path is matched literally")
            return literal
        }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let patterns = pattern.trimmingPrefix("^").split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { String($0) }
        var last = patterns.last ?? ""
        if last.hasSuffix("$") { last.removeLast() }
        let cleaned = patterns.dropLast() + [last]
        guard cleaned.count == segments.count else {
            note("the path regex /\(pattern)/ does not split into the path's segments: the path is matched literally")
            return literal
        }
        var pieces: [String] = []
        var params: [String: Matcher] = [:]
        for (index, (segment, piece)) in zip(segments, cleaned).enumerated() {
            if NSRegularExpression.escapedPattern(for: segment) == piece || segment == piece {
                pieces.append(Self.escapedPath(segment))
                continue
            }
            guard (try? Regex(piece)).flatMap({ try? $0.wholeMatch(in: segment) }) != nil else {
                note("the path regex /\(pattern)/ does not match the example path \(text): the path is matched literally")
                return literal
            }
            let previous = index > 0 ? Contract.identifier(segments[index - 1]) : ""
            let name = Contract.freeName(previous.isEmpty ? "segment" : "\(previous)_id", separator: "_") { params[$0] != nil }
            params[name] = Matcher(.regex(piece), example: .string(segment))
            pieces.append("{\(name)}")
        }
        return (try? RequestPath("/" + pieces.joined(separator: "/"), params: params)) ?? literal
    }

    /// A literal path segment that looks like `{name}` would read as a parameter.
    private static func escapedPath(_ text: String) -> String {
        text.replacingOccurrences(of: "{", with: "%7B").replacingOccurrences(of: "}", with: "%7D")
    }

    private func queryItems(_ value: JSONValue?) -> [(String, [String])] {
        switch value {
        case .string(let text)?:
            // v2: "a=1&b=2".
            var items: [(String, [String])] = []
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                let name = parts[0]
                let value = parts.count > 1 ? parts[1] : ""
                if let index = items.firstIndex(where: { $0.0 == name }) {
                    items[index].1.append(value)
                } else {
                    items.append((name, [value]))
                }
            }
            return items
        case .object(let object)?:
            return object.keys.sorted().map { name in
                switch object[name] {
                case .array(let values)?: (name, values.map { $0.stringValue ?? $0.description })
                case .string(let value)?: (name, [value])
                default: (name, [])
                }
            }
        default:
            return []
        }
    }

    private func headerItems(_ value: JSONValue?) -> [(String, String)] {
        guard case .object(let object)? = value else { return [] }
        return object.keys.sorted().map { name in
            switch object[name] {
            case .array(let values)?: (name, values.map { $0.stringValue ?? $0.description }.joined(separator: ", "))
            case .string(let value)?: (name, value)
            case let other?: (name, other.description)
            case nil: (name, "")
            }
        }
    }

    // MARK: - Response

    private mutating func response(_ object: [String: JSONValue], rules: PactRuleBook) -> ResponseSpec? {
        let status: Int
        switch object["status"] {
        case .integer(let code)?: status = code
        case nil: status = 200
        default:
            note("the response status is not a number: not imported")
            return nil
        }
        if rules.path != nil || !rules.query.isEmpty { note("rules on a response's path or query mean nothing: ignored") }
        var headers: [String: Matcher] = [:]
        for (name, value) in headerItems(object["headers"]) {
            let lowered = name.lowercased()
            if let list = rules.headers[lowered] {
                headers[lowered] = textMatcher(value, rules: list, at: "header \(name)")
            } else if lowered == "content-type" {
                // Pact compares the media type, and parameters only when the contract lists them.
                headers[lowered] = Matcher(.regex(NSRegularExpression.escapedPattern(for: value) + "(;.*)?"), example: .string(value))
            } else {
                headers[lowered] = Matcher(.literal(.string(value)))
            }
        }
        let contentType = headers["content-type"]?.example?.stringValue
        var body = ResponseBodySpec.unspecified
        switch self.body(object["body"], contentType: contentType) {
        case .none: break
        case .json(let value): body = .json(jsonMatcher(value, rules: rules))
        case .text(let text, let type):
            if let form = form(text, contentType: type, rules: rules) {
                body = .form(form)
            } else if let list = rules.bodyRules(at: []) {
                body = .text(apply(list, to: .string(text), at: [], rules: rules))
            } else {
                body = .text(Matcher(.literal(.string(text))))
            }
        }
        return ResponseSpec(status: status, headers: headers, body: body, strict: false)
    }

    // MARK: - Bodies

    /// A body Pact sends as `application/x-www-form-urlencoded` text, as a `form:` whose fields
    /// take the rules at `$.NAME`; nil for another content type or text that is no form.
    private mutating func form(_ text: String, contentType: String?, rules: PactRuleBook) -> FormBody? {
        guard FormEncoding.isForm(contentType: contentType), let fields = FormEncoding.decode(Data(text.utf8)) else { return nil }
        var seen = Set<String>()
        var form: [FormField] = []
        for field in fields {
            guard seen.insert(field.name).inserted else {
                note("form field '\(field.name)' is sent more than once: the first is kept")
                continue
            }
            form.append(
                FormField(
                    name: field.name,
                    value: textMatcher(field.value, rules: rules.bodyRules(at: [.key(field.name)]), at: "form field \(field.name)")))
        }
        return FormBody(form)
    }

    private enum Body {
        case none
        case json(JSONValue)
        /// Text, and the content type it was given with (a v4 body's own, else the header's).
        case text(String, type: String?)
    }

    /// v2/v3 bodies are the JSON value itself; v4 wraps them: `{"content", "contentType", "encoded"}`.
    private mutating func body(_ value: JSONValue?, contentType: String?) -> Body {
        guard var value else { return .none }
        var type = contentType
        if isV4, case .object(let wrapper) = value, wrapper["content"] != nil || wrapper["contentType"] != nil {
            if let encoded = wrapper["encoded"], encoded != .bool(false) {
                note("the body is encoded (\(encoded.stringValue ?? "base64")), which contracts cannot hold: not imported")
                return .none
            }
            type = wrapper["contentType"]?.stringValue ?? type
            value = wrapper["content"] ?? .null
        }
        let isJSON = type.map { $0.lowercased().contains("json") } ?? true
        switch value {
        case .string(let text) where !isJSON: return .text(text, type: type)
        case .string(let text):
            // A JSON body given as text (v4 may do so).
            if let parsed = try? JSONValue(parsing: Data(text.utf8)), type != nil { return .json(parsed) }
            return .text(text, type: type)
        case .null where isV4: return .none
        default: return .json(value)
        }
    }

    private mutating func jsonMatcher(_ value: JSONValue, rules: PactRuleBook) -> Matcher {
        build(value, at: [], cascade: false, rules: rules)
    }

    /// The matcher for `value` at `path`: its own rules, else the `type` matching of an
    /// ancestor (which cascades), else the literal.
    private mutating func build(_ value: JSONValue, at path: [JSONPath.Component], cascade: Bool, rules: PactRuleBook) -> Matcher {
        if let list = rules.bodyRules(at: path) { return apply(list, to: value, at: path, rules: rules) }
        if cascade { return typeMatcher(value, at: path, min: nil, max: nil, rules: rules) }
        switch value {
        case .object(let members):
            return Matcher(
                .object(
                    members.reduce(into: [:]) { result, member in
                        result[member.key] = build(member.value, at: path + [.key(member.key)], cascade: false, rules: rules)
                    }))
        case .array(let elements):
            return Matcher(.array(elements.enumerated().map { build($1, at: path + [.index($0)], cascade: false, rules: rules) }))
        default:
            return Matcher(.literal(value))
        }
    }

    /// Matching by type: scalars by their JSON type, objects and arrays by their children's.
    private mutating func typeMatcher(_ value: JSONValue, at path: [JSONPath.Component], min: Int?, max: Int?, rules: PactRuleBook)
        -> Matcher
    {
        switch value {
        case .object(let members):
            return Matcher(
                .object(
                    members.reduce(into: [:]) { result, member in
                        result[member.key] = build(member.value, at: path + [.key(member.key)], cascade: true, rules: rules)
                    }))
        case .array(let elements):
            let element = elements.first.map { build($0, at: path + [.index(0)], cascade: true, rules: rules) } ?? Matcher(.any)
            return Matcher(.each(of: element, min: min, max: max), example: Self.fits(value, min: min, max: max) ? value : nil)
        case .string: return Matcher(.string(minLength: nil, maxLength: nil), example: value)
        case .integer: return Matcher(.integer(min: nil, max: nil), example: value)
        case .number: return Matcher(.number(min: nil, max: nil), example: value)
        case .bool: return Matcher(.boolean, example: value)
        case .null: return Matcher(.null)
        }
    }

    private static func fits(_ value: JSONValue, min: Int?, max: Int?) -> Bool {
        guard case .array(let elements) = value else { return false }
        return elements.count >= (min ?? 0) && elements.count <= (max ?? Int.max)
    }

    /// The matcher for a place's rules. Several rules combined with AND keep the first
    /// that maps (a later `min`/`max` bounds it); OR keeps the first, with a note.
    /// `place` names it in notes (`header X`); by default its JSON path in the body.
    private mutating func apply(
        _ list: (rules: [PactRule], combine: String), to value: JSONValue, at path: [JSONPath.Component], place: String? = nil,
        rules: PactRuleBook
    ) -> Matcher {
        let where_ = place ?? JSONPath(components: path).description
        if list.combine.uppercased() == "OR", list.rules.count > 1 {
            note("rules at \(where_) are combined with OR: only the first is kept")
        }
        guard let rule = list.rules.first else { return Matcher(.literal(value)) }
        if list.rules.count > 1, list.combine.uppercased() != "OR" {
            note(
                "rules at \(where_) after the first ('\(list.rules.dropFirst().map(\.kind).joined(separator: "', '"))') are not combined: ignored"
            )
        }
        let min = rule.integer("min")
        let max = rule.integer("max")
        switch rule.kind {
        case "type":
            return typeMatcher(value, at: path, min: min, max: max, rules: rules)
        case "regex":
            guard let pattern = rule.string("regex") else { break }
            return regexMatcher(pattern, value, at: where_)
        case "integer":
            if case .integer = value { return Matcher(.integer(min: nil, max: nil), example: value) }
        case "decimal", "number":
            if case .integer = value { return Matcher(.number(min: nil, max: nil), example: value) }
            if case .number = value { return Matcher(.number(min: nil, max: nil), example: value) }
        case "boolean":
            if case .bool = value { return Matcher(.boolean, example: value) }
        case "null":
            return Matcher(.null)
        case "equality":
            return Matcher.literal(value)
        case "include":
            guard let text = rule.string("value") else { break }
            return regexMatcher("(?s).*" + NSRegularExpression.escapedPattern(for: text) + ".*", value, at: where_)
        case "date", "time", "timestamp", "datetime":
            return dateMatcher(rule, value, at: where_)
        case "notEmpty":
            if case .array = value { return typeMatcher(value, at: path, min: 1, max: nil, rules: rules) }
            if case .string = value { return Matcher(.string(minLength: 1, maxLength: nil), example: value) }
        default:
            note("the '\(rule.kind)' rule at \(where_) has no equivalent: the value is matched literally")
            return Matcher.literal(value)
        }
        note("the '\(rule.kind)' rule at \(where_) does not fit its example \(value.description): the value is matched literally")
        return Matcher.literal(value)
    }

    private mutating func regexMatcher(_ pattern: String, _ value: JSONValue, at where_: String) -> Matcher {
        guard let regex = try? Regex(pattern) else {
            note("the regex /\(pattern)/ at \(where_) is not one Swift reads: the value is matched literally")
            return Matcher.literal(value)
        }
        guard case .string(let text) = value, (try? regex.wholeMatch(in: text)) != nil else {
            note("the example at \(where_) does not match its regex /\(pattern)/: the value is matched literally")
            return Matcher.literal(value)
        }
        return Matcher(.regex(pattern), example: value)
    }

    /// `date`, `time`, `timestamp` with a Java date format: ISO date-times with a zone become
    /// `datetime`, others a regex of the format.
    private mutating func dateMatcher(_ rule: PactRule, _ value: JSONValue, at where_: String) -> Matcher {
        let defaults = [
            "date": "yyyy-MM-dd", "time": "HH:mm:ss", "timestamp": "yyyy-MM-dd'T'HH:mm:ssXXX", "datetime": "yyyy-MM-dd'T'HH:mm:ssXXX",
        ]
        let format = rule.string("format") ?? rule.string(rule.kind) ?? defaults[rule.kind] ?? ""
        if case .string(let text) = value, format.contains("'T'"), format.contains("X"), DateTimeFormat.parse(text) != nil {
            return Matcher(.datetime, example: value)
        }
        guard let pattern = PactDateFormat.regex(format) else {
            note("the date format '\(format)' at \(where_) has no equivalent: the value is matched literally")
            return Matcher.literal(value)
        }
        return regexMatcher(pattern, value, at: where_)
    }

    /// A header or query value: its rules applied to the text, as to a string in a body;
    /// an `integer` rule reads the text as a number, as the stub does.
    private mutating func textMatcher(_ value: String, rules list: (rules: [PactRule], combine: String)?, at place: String) -> Matcher {
        guard let list else { return Matcher(.literal(.string(value))) }
        if list.rules.first?.kind == "integer", let number = Int(value) {
            return Matcher(.integer(min: nil, max: nil), example: .integer(number))
        }
        return apply(list, to: .string(value), at: [], place: place, rules: PactRuleBook(nil))
    }

    // MARK: - Generators

    private mutating func noteGenerators(_ value: JSONValue?, side: String) {
        guard case .object(let categories)? = value else { return }
        for category in categories.keys.sorted() {
            guard case .object(let entries)? = categories[category] else { continue }
            // A path generator is one generator, not a map of them.
            let generators: [(String, JSONValue)] =
                entries["type"] != nil ? [("", .object(entries))] : entries.keys.sorted().map { ($0, entries[$0] ?? .null) }
            for (place, generator) in generators {
                let type = generator["type"]?.stringValue ?? "unknown"
                let at = place.isEmpty ? "\(side) \(category)" : "\(side) \(category) \(place)"
                if type == "ProviderState" {
                    let expression = generator["expression"]?.stringValue ?? ""
                    note(
                        "ProviderState generator at \(at) (\(expression)) dropped: the example is sent as written; a value from an earlier interaction can be saved and used as {{name}}"
                    )
                } else {
                    note("generator \(type) at \(at) dropped: the example is sent as written (the stub makes its own values for matchers)")
                }
            }
        }
    }
}
