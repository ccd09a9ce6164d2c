import ContractKit

/// The JSON shapes of the 4xx responses a set of contracts declares: keys and JSON types,
/// not values; and the pages a route declares for its 4xx (a text body, such as an HTML
/// page a browser is shown), which that route may answer any bad input with. `contract
/// probe` holds every answer to a bad input to one of them.
///
/// ```swift
/// let shapes = ErrorShapes(contracts)
/// shapes.accepts(["error": "invalid_request", "error_description": "…"])   // true for authd's contracts
/// ```
public struct ErrorShapes: Sendable {
    /// One declared shape, with where it is declared.
    struct Shape: Sendable {
        let matcher: Matcher?
        let strict: Bool
        let declaredAt: String
    }

    /// A text 4xx body one route declares.
    struct Page: Sendable {
        let method: String
        let path: String
        let matcher: Matcher
    }

    let shapes: [Shape]
    let pages: [Page]
    /// Whether a contract declares a redirect that carries an `error` in its `Location`'s
    /// query (RFC 6749 §4.1.2.1: how an authorization endpoint refuses an app it knows).
    let redirectsErrors: Bool

    /// The shapes of every 4xx response in `contracts`; one declared without a body accepts any body.
    public init(_ contracts: [Contract]) {
        var shapes: [Shape] = []
        var pages: [Page] = []
        var redirectsErrors = false
        for contract in contracts {
            for interaction in contract.interactions where (300..<400).contains(interaction.response.status) {
                if interaction.response.location?.query.contains(where: { $0.name == "error" }) == true { redirectsErrors = true }
            }
            for interaction in contract.interactions where (400..<500).contains(interaction.response.status) {
                let response = interaction.response
                switch response.body {
                case .json(let matcher):
                    shapes.append(Shape(matcher: Self.typesOnly(matcher), strict: response.strict, declaredAt: "\(interaction.location)"))
                case .unspecified: shapes.append(Shape(matcher: nil, strict: false, declaredAt: "\(interaction.location)"))
                case .text(let matcher):
                    pages.append(Page(method: interaction.request.method, path: "\(interaction.request.path)", matcher: matcher))
                case .form: continue
                }
            }
        }
        self.shapes = shapes
        self.pages = pages
        self.redirectsErrors = redirectsErrors
    }

    /// The `error` a redirect carries back to an app, when the contracts declare such
    /// redirects and `response` is one; nil otherwise.
    ///
    /// ```swift
    /// shapes.redirectedError(response)   // "invalid_request" for a 303 to …/cb?error=invalid_request&state=…
    /// ```
    public func redirectedError(_ response: ContractResponse) -> String? {
        guard redirectsErrors, (300..<400).contains(response.status), let location = response.header("Location") else { return nil }
        return LocationSpec.parts(of: location).query.first { $0.name == "error" }?.value
    }

    /// Whether `text` is a page its route (`method` and the path of `target`) declares for a
    /// 4xx answer.
    public func accepts(page text: String, method: String, target: String) -> Bool {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return pages.contains { page in
            page.method == method && page.path == path && page.matcher.mismatches(in: .string(text)).isEmpty
        }
    }

    /// Whether no 4xx response is declared at all.
    public var isEmpty: Bool { shapes.isEmpty }

    /// Whether `body` has one of the shapes: each declared key present with a value of the
    /// declared JSON type (and, for a strict response, no other key).
    public func accepts(_ body: JSONValue?) -> Bool {
        shapes.contains { shape in
            guard let matcher = shape.matcher else { return true }
            guard let body else { return false }
            return matcher.mismatches(in: body, strict: shape.strict).isEmpty
        }
    }

    /// A matcher of the same shape that accepts any value of each declared type.
    static func typesOnly(_ matcher: Matcher) -> Matcher {
        let string = Matcher(.string(minLength: nil, maxLength: nil))
        let number = Matcher(.number(min: nil, max: nil))
        switch matcher.kind {
        case .literal(let value):
            switch value {
            case .string: return string
            case .integer, .number: return number
            case .bool: return Matcher(.boolean)
            case .null: return Matcher(.null)
            case .object, .array: return typesOnly(Matcher.literal(value))
            }
        case .object(let members): return Matcher(.object(members.mapValues { typesOnly($0).optional($0.optional) }))
        case .array(let elements): return Matcher(.each(of: elements.first.map(typesOnly) ?? Matcher(.any), min: nil, max: nil))
        case .typed(let kind):
            switch kind.jsonType {
            case "string": return string
            case "integer", "number": return number
            case "boolean": return Matcher(.boolean)
            case "null": return Matcher(.null)
            case "array": return Matcher(.each(of: kind.children.first.map(typesOnly) ?? Matcher(.any), min: nil, max: nil))
            case nil where !kind.children.isEmpty: return Matcher(.oneOf(kind.children.map(typesOnly)))
            default: return Matcher(.any)
            }
        }
    }
}
