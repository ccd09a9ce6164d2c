import Foundation

/// A request path as written in a contract: literal text, `{{var}}` placeholders for saved
/// values, and whole segments `{name}` whose values the matchers of `path_params` describe;
/// or one saved URL, `{{token_endpoint}}`, sent as it is.
///
/// ```swift
/// let path = try RequestPath("/notes/{id}", params: ["id": Matcher(.uuid)])
/// path.match("/notes/0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b", known: [:])   // ["id": "0b6c…"]
/// try path.render(with: [:])                                              // "/notes/<a generated UUID>"
/// ```
public struct RequestPath: Sendable, Equatable, CustomStringConvertible {
    /// One `/`-separated piece of the path.
    public enum Segment: Sendable, Equatable {
        /// Text, perhaps with `{{var}}` placeholders.
        case text(Template)
        /// A `{name}` segment.
        case parameter(String)
    }

    /// The path as written.
    public let text: String
    /// The matcher of each `{name}` segment.
    public let params: [String: Matcher]
    /// The segments after the leading `/`.
    public let segments: [Segment]
    /// Whether the path is plain text: no placeholders, no parameters.
    public let isLiteral: Bool
    /// The variable of a path written as one saved URL (`{{token_endpoint}}`, an endpoint a
    /// discovery document named), sent as it is; nil for a path that starts with `/`.
    public let savedURL: String?

    /// A `{name}` segment without a matcher, or a matcher without a segment.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// Why.
        public let description: String
    }

    /// Parses `text`; every `{name}` segment needs a matcher in `params` and every matcher a segment.
    /// - Throws: ``Invalid``.
    public init(_ text: String, params: [String: Matcher] = [:]) throws {
        self.text = text
        self.params = params
        self.isLiteral = params.isEmpty && !Template.mayHavePlaceholders(text)
        if !text.hasPrefix("/"), params.isEmpty, let name = Template(text).soleVariable {
            savedURL = name
            segments = []
            return
        }
        savedURL = nil
        let pieces = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var segments: [Segment] = []
        var seen = Set<String>()
        for piece in pieces {
            if let name = Self.parameterName(piece) {
                guard params[name] != nil else {
                    throw Invalid(description: "path segment {\(name)} has no matcher in path_params")
                }
                guard seen.insert(name).inserted else { throw Invalid(description: "path parameter {\(name)} appears twice") }
                segments.append(.parameter(name))
            } else {
                segments.append(.text(Template(String(piece))))
            }
        }
        if let unused = params.keys.sorted().first(where: { !seen.contains($0) }) {
            throw Invalid(description: "path_params names '\(unused)', but the path has no {\(unused)} segment")
        }
        self.segments = segments
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text && lhs.params == rhs.params }

    /// The path as written.
    public var description: String { text }

    /// The parameter names, in path order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// Every `{{var}}` used, in the text and in the parameters' matchers.
    public var variables: [String] {
        if let savedURL { return [savedURL] }
        return segments.flatMap { segment -> [String] in
            switch segment {
            case .text(let template): template.variables
            case .parameter(let name): params[name]?.templateVariables ?? []
            }
        }
    }

    /// The path to send: placeholders filled, each parameter from its matcher's example (or
    /// a generated value; a `totp` code from `codes`), percent-encoded.
    /// - Throws: `Template/UndefinedVariable`, `MatcherSampleError`, what `codes` throws.
    public func render(with variables: [String: JSONValue], codes: (any TOTPCodeSource)? = nil) throws -> String {
        if savedURL != nil { return try Template(text).render(variables) }
        var result = ""
        for segment in segments {
            result += "/"
            switch segment {
            case .text(let template):
                result += try template.render(variables)
            case .parameter(let name):
                guard let matcher = params[name] else { continue }
                let text = try matcher.sampleText(with: variables, at: "path parameter \(name)", codes: codes)
                result += text.addingPercentEncoding(withAllowedCharacters: Self.segmentAllowed) ?? text
            }
        }
        return result.isEmpty ? "/" : result
    }

    /// The parameters' values when `path` (percent-decoded) has this shape — literal text
    /// equal, placeholders equal to the `known` value they name or anything when unknown, a
    /// parameter any one non-empty segment — else nil. Parameter matchers are not applied.
    public func match(_ path: String, known: [String: JSONValue]) -> [String: String]? {
        if let savedURL {
            // The saved URL's path; any path while it is not saved.
            guard let url = known[savedURL] else { return [:] }
            return URLComponents(string: url.text)?.path == path ? [:] : nil
        }
        if isLiteral, text.hasPrefix("/") { return path == text ? [:] : nil }
        let templated = segments.contains { if case .text(let template) = $0 { !template.variables.isEmpty } else { false } }
        if !templated {
            let pieces = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard pieces.count == segments.count, path.hasPrefix("/") else { return nil }
            var values: [String: String] = [:]
            for (segment, piece) in zip(segments, pieces) {
                switch segment {
                case .text(let template): guard template.text == piece else { return nil }
                case .parameter(let name):
                    guard !piece.isEmpty else { return nil }
                    values[name] = String(piece)
                }
            }
            return values
        }
        // A placeholder's value may hold '/': match the whole path with one expression.
        var pattern = "^"
        var names: [String] = []
        for segment in segments {
            pattern += "/"
            switch segment {
            case .text(let template): pattern += template.pattern(known: known)
            case .parameter(let name):
                pattern += "([^/]+)"
                names.append(name)
            }
        }
        pattern += "$"
        guard let expression = try? NSRegularExpression(pattern: pattern),
            let found = expression.firstMatch(in: path, range: NSRange(path.startIndex..., in: path))
        else { return nil }
        var values: [String: String] = [:]
        for (index, name) in names.enumerated() {
            if let range = Range(found.range(at: index + 1), in: path) { values[name] = String(path[range]) }
        }
        return values
    }

    /// `{name}` for a whole segment, with an identifier inside.
    private static func parameterName(_ piece: Substring) -> String? {
        guard piece.count > 2, piece.first == "{", piece.last == "}", !piece.hasPrefix("{{") else { return nil }
        let name = piece.dropFirst().dropLast()
        guard let first = name.first, first.isLetter || first == "_",
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
        else { return nil }
        return String(name)
    }

    package static let segmentAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        return allowed
    }()
}

extension Template {
    /// A regular expression (without anchors) for the texts this template can become: literal
    /// runs as they are, known placeholders as their value, unknown ones as any non-empty text.
    public func pattern(known: [String: JSONValue]) -> String {
        var pattern = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open.lowerBound]))
            let inside = rest[open.upperBound..<close.lowerBound]
            let name = (inside.range(of: ":-").map { inside[..<$0.lowerBound] } ?? inside).trimmingCharacters(in: .whitespaces)
            if let value = known[name] {
                pattern += NSRegularExpression.escapedPattern(for: value.text)
            } else {
                pattern += "(?:.+?)"
            }
            rest = rest[close.upperBound...]
        }
        return pattern + NSRegularExpression.escapedPattern(for: String(rest))
    }
}
