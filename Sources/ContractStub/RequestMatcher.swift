import ContractKit
import Foundation

/// How well a request fits an interaction's request: nil with the first difference when it
/// does not fit, else a score where literal agreement counts more than a placeholder.
struct RequestFit {
    /// Higher is more specific.
    let score: Int
}

/// An incoming request taken apart once, however many interactions it is compared with.
struct ParsedRequest {
    let request: ContractRequest
    let method: String
    let path: String
    let query: [(name: String, value: String)]
    let json: JSONValue?

    init(_ request: ContractRequest) {
        self.request = request
        method = request.method.uppercased()
        (path, query) = RequestMatcher.split(request.target)
        json = request.body.flatMap { try? JSONValue(parsing: $0) }
    }
}

/// Compares an incoming request with a contract's request spec. Placeholders (`{{name}}`)
/// whose value the stub knows must carry that value; unknown ones accept anything.
struct RequestMatcher {
    let known: [String: JSONValue]

    /// The fit, or the first difference.
    func fit(_ spec: RequestSpec, _ parsed: ParsedRequest) -> Result<RequestFit, Difference> {
        let request = parsed.request
        var score = 0
        guard spec.method == parsed.method else {
            return .failure(Difference(weight: 0, text: "method: expected \(spec.method), got \(request.method)"))
        }
        let (path, query) = (parsed.path, parsed.query)
        switch fit(spec.path, path) {
        case .some(let gained): score += gained
        case nil: return .failure(Difference(weight: 1, text: "path: expected \(spec.path), got \(path)"))
        }
        for item in spec.query {
            guard let value = query.first(where: { $0.name == item.name })?.value else {
                return .failure(Difference(weight: 2, text: "query \(item.name): missing"))
            }
            guard let gained = fit(item.value, value) else {
                return .failure(Difference(weight: 2, text: "query \(item.name): expected \(item.value), got \(value)"))
            }
            score += gained
        }
        for header in spec.headers {
            let name = header.name.lowercased()
            guard let value = request.headers.first(where: { $0.name.lowercased() == name })?.value else {
                return .failure(Difference(weight: 3, text: "header \(header.name): missing"))
            }
            guard let gained = fit(header.value, value) else {
                return .failure(Difference(weight: 3, text: "header \(header.name): expected \(header.value), got \(value)"))
            }
            score += gained
        }
        switch spec.body {
        case .none:
            break
        case .text(let template):
            let text = String(decoding: request.body ?? Data(), as: UTF8.self)
            guard let gained = fit(template, text) else {
                return .failure(Difference(weight: 4, text: "body: expected \(JSONValue.string(template.text)), got \(JSONValue.string(String(text.prefix(80))))"))
            }
            score += gained
        case .json(let expected):
            guard let actual = parsed.json else {
                return .failure(Difference(weight: 4, text: "body: expected JSON, got \(request.body.map { "\($0.count) bytes that are not JSON" } ?? "no body")"))
            }
            switch fit(expected, actual, path: "$") {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        }
        return .success(RequestFit(score: score))
    }

    /// Literal text scores 2, a placeholder 1; nil when it does not fit.
    func fit(_ template: Template, _ actual: String) -> Int? {
        if template.variables.isEmpty { return template.text == actual ? 2 : nil }
        var pattern = "^"
        var score = 1
        var rest = Substring(template.text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open.lowerBound]))
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let value = known[name] {
                let text: String
                if case .string(let string) = value { text = string } else { text = value.description }
                pattern += NSRegularExpression.escapedPattern(for: text)
                score += 1
            } else {
                pattern += "(.+?)"
            }
            rest = rest[close.upperBound...]
        }
        pattern += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        guard actual.range(of: pattern, options: .regularExpression) != nil else { return nil }
        return score
    }

    private func fit(_ expected: JSONValue, _ actual: JSONValue, path: String) -> Result<Int, Difference> {
        switch expected {
        case .string(let text) where Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty:
            let template = Template(text)
            if let name = template.soleVariable {
                guard let value = known[name] else { return .success(1) }
                return Matcher.equal(value, actual) ? .success(3) : .failure(Difference(weight: 5, text: "body \(path): expected the value saved as '\(name)', got \(actual)"))
            }
            guard case .string(let string) = actual, let gained = fit(template, string) else {
                return .failure(Difference(weight: 5, text: "body \(path): expected \(expected), got \(actual)"))
            }
            return .success(gained)
        case .object(let members):
            guard case .object(let object) = actual else {
                return .failure(Difference(weight: 5, text: "body \(path): expected an object, got \(actual.typeName)"))
            }
            // A contract's request body is a concrete example: the same keys, no more.
            if let extra = object.keys.sorted().first(where: { members[$0] == nil }) {
                return .failure(Difference(weight: 5, text: "body \(path).\(extra): not in the contract's request"))
            }
            // Keys first: a missing key settles it before any value is looked at.
            if let missing = members.keys.sorted().first(where: { object[$0] == nil }) {
                return .failure(Difference(weight: 5, text: "body \(path).\(missing): missing"))
            }
            var score = 0
            for key in members.keys.sorted() {
                let childPath = "\(path).\(key)"
                guard let value = object[key], let member = members[key] else {
                    return .failure(Difference(weight: 5, text: "body \(childPath): missing"))
                }
                switch fit(member, value, path: childPath) {
                case .success(let gained): score += gained
                case .failure(let difference): return .failure(difference)
                }
            }
            return .success(score)
        case .array(let elements):
            guard case .array(let array) = actual, array.count == elements.count else {
                return .failure(Difference(weight: 5, text: "body \(path): expected an array of \(elements.count), got \(actual)"))
            }
            var score = 0
            for (index, pair) in zip(elements, array).enumerated() {
                switch fit(pair.0, pair.1, path: "\(path)[\(index)]") {
                case .success(let gained): score += gained
                case .failure(let difference): return .failure(difference)
                }
            }
            return .success(score)
        default:
            return Matcher.equal(expected, actual)
                ? .success(2) : .failure(Difference(weight: 5, text: "body \(path): expected \(expected), got \(actual)"))
        }
    }

    /// The path and the decoded query items of a request target.
    static func split(_ target: String) -> (path: String, query: [(name: String, value: String)]) {
        guard let mark = target.firstIndex(of: "?") else { return (target.removingPercentEncoding ?? target, []) }
        let path = String(target[..<mark])
        var components = URLComponents()
        components.percentEncodedQuery = String(target[target.index(after: mark)...])
        let items = (components.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        return (path.removingPercentEncoding ?? path, items)
    }
}

/// Why a request does not fit an interaction; `weight` says how far it got (higher is
/// closer). The text is made only for the difference that gets reported.
struct Difference: Error {
    let weight: Int
    private let describe: @Sendable () -> String

    init(weight: Int, text: @autoclosure @escaping @Sendable () -> String) {
        self.weight = weight
        self.describe = text
    }

    var text: String { describe() }
}
