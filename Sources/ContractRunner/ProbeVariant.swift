import ContractKit
import Foundation
import WebForms

/// A bad input derived from an interaction's request, for `contract probe`.
///
/// ```swift
/// let variants = ProbeVariant.derive(from: request, limits: .init())
/// variants.map(\.name)   // ["username missing", "username null", "username a number", …]
/// ```
public struct ProbeVariant: Sendable {
    /// What was changed, for people: `username missing`, `body not JSON`.
    public let name: String
    /// The request to send.
    public let request: ContractRequest
    /// Whether it must meet an unspent grant: a code exchange whose PKCE verifier it changes
    /// (RFC 7636 §4.6), sent in place of the sequence's own exchange after the interactions
    /// before it are replayed for a fresh code, so that the verifier is what is refused.
    public var onFreshGrant = false

    /// Creates a variant.
    public init(name: String, request: ContractRequest, onFreshGrant: Bool = false) {
        self.name = name
        self.request = request
        self.onFreshGrant = onFreshGrant
    }

    /// Sizes of the variants that are too big.
    public struct Limits: Sendable {
        /// Characters of a string that is too long.
        public var longString: Int
        /// Bytes of a body that is too large.
        public var oversizedBody: Int

        /// 10,000 characters, and a body of 1 MiB and one byte.
        public init(longString: Int = 10_000, oversizedBody: Int = 1024 * 1024 + 1) {
            self.longString = longString
            self.oversizedBody = oversizedBody
        }
    }

    /// The variants of `request`: for a JSON object body, each field (at any depth, not
    /// inside arrays) missing, `null`, of another type, empty and too long where it is a
    /// string, and an unknown extra field; for any body, one that is not JSON, a wrong
    /// `Content-Type` and one that is too large; for a form body, each field missing,
    /// duplicated and empty, an unknown extra field, and the form sent as `application/json`;
    /// for a token request of a one-time grant (`authorization_code`, `refresh_token`), the
    /// request sent again as it was, which the sequence's own exchange spent; for a code
    /// exchange with a PKCE verifier, the verifier missing and empty (even where `optional`
    /// has it) and one of another challenge, marked ``onFreshGrant``.
    /// A request without a body has none. The top-level fields in `optional`
    /// (``optionalFields(in:)``) get no "missing" variant.
    public static func derive(from request: ContractRequest, limits: Limits = Limits(), optional: Set<String> = []) -> [ProbeVariant] {
        guard let body = request.body else { return [] }
        var variants: [ProbeVariant] = []
        func with(_ name: String, body: Data, contentType: String? = nil) {
            var changed = request
            changed.body = body
            if let contentType {
                changed.headers =
                    changed.headers.filter { !isSameHeaderName($0.name, "Content-Type") } + [(name: "Content-Type", value: contentType)]
            }
            variants.append(ProbeVariant(name: name, request: changed))
        }
        let json = try? JSONValue(parsing: body)
        if case .object(let object)? = json {
            for (path, value) in fields(of: object, under: []) {
                let label = path.joined(separator: ".")
                func replaced(_ replacement: JSONValue?) -> Data {
                    Data(setting(path[...], to: replacement, in: .object(object)).description.utf8)
                }
                // A field the contracts show the route accepting without is not bad input when missing.
                if !(path.count == 1 && optional.contains(label)) { with("\(label) missing", body: replaced(nil)) }
                if value != .null { with("\(label) null", body: replaced(.null)) }
                let (otherName, other) = otherType(than: value)
                with("\(label) \(otherName)", body: replaced(other))
                switch value {
                case .string(let text):
                    if !text.isEmpty { with("\(label) empty", body: replaced(.string(""))) }
                    with(
                        "\(label) too long (\(limits.longString) characters)",
                        body: replaced(.string(String(repeating: "x", count: limits.longString))))
                case .array(let elements) where !elements.isEmpty: with("\(label) empty", body: replaced(.array([])))
                case .object(let members) where !members.isEmpty: with("\(label) empty", body: replaced(.object([:])))
                default: break
                }
            }
            var extra = object
            extra[unknownField(avoiding: object)] = .string("probe")
            with("an unknown extra field", body: Data(JSONValue.object(extra).description.utf8))
        }
        if FormEncoding.isForm(contentType: request.header("Content-Type")), let fields = FormEncoding.decode(body) {
            // A one-time grant sent again, after the sequence spent it, first: the variants
            // after it find the grant spent whatever they change.
            if let replay = replayedGrant(fields.first { $0.name == "grant_type" }?.value) {
                variants.append(ProbeVariant(name: replay, request: request))
            }
            for variant in formVariants(of: fields, optional: optional) { with(variant.name, body: variant.body) }
            // The verifier's own variants are sent on a fresh code; those formVariants made too.
            for pkce in pkceVariants(of: request, fields: fields) {
                if let made = variants.firstIndex(where: { $0.name == pkce.name }) {
                    variants[made].onFreshGrant = true
                } else {
                    variants.append(pkce)
                }
            }
            with("Content-Type application/json", body: body, contentType: "application/json")
        }
        if json != nil { with("a body that is not JSON", body: Data("this is not JSON".utf8)) }
        with("Content-Type text/plain", body: body, contentType: "text/plain")
        with("a body of \(limits.oversizedBody) bytes", body: oversized(json, size: limits.oversizedBody))
        return variants
    }

    /// The variants of a code exchange with a PKCE verifier, each sent on a fresh code
    /// (``onFreshGrant``): the verifier missing and empty, which a code issued for a challenge
    /// needs (RFC 7636 §4.6) even where the route's other grants go without one, and a
    /// verifier of the right form (§4.1) but another challenge. None for another request.
    public static func pkceVariants(of request: ContractRequest) -> [ProbeVariant] {
        guard let body = request.body, FormEncoding.isForm(contentType: request.header("Content-Type")),
            let fields = FormEncoding.decode(body)
        else { return [] }
        return pkceVariants(of: request, fields: fields)
    }

    /// ``pkceVariants(of:)`` of a form request whose `fields` are already read.
    private static func pkceVariants(of request: ContractRequest, fields: [(name: String, value: String)]) -> [ProbeVariant] {
        guard fields.contains(where: { $0.name == "grant_type" && $0.value == "authorization_code" }),
            let index = fields.firstIndex(where: { $0.name == "code_verifier" })
        else { return [] }
        var without = fields
        without.remove(at: index)
        var empty = fields
        empty[index].value = ""
        var other = fields
        other[index].value = String(repeating: "p", count: 43)
        let changes = [
            ("form field code_verifier missing", without), ("form field code_verifier empty", empty),
            ("a code_verifier of another challenge", other),
        ]
        return changes.map { name, changed in
            var variant = request
            variant.body = Data(FormEncoding.encode(changed).utf8)
            return ProbeVariant(name: name, request: variant, onFreshGrant: true)
        }
    }

    /// The name of the replay of a token request whose grant is used once (RFC 6749 §4.1.2: a
    /// code; RFC 9700 §4.14.2: a rotated refresh token), nil for another grant.
    private static func replayedGrant(_ grantType: String?) -> String? {
        switch grantType {
        case "authorization_code": "the code sent again (RFC 6749 §4.1.2: a code is used once)"
        case "refresh_token": "the refresh token sent again (RFC 9700 §4.14.2: a rotated refresh token is used once)"
        default: nil
        }
    }

    /// Every field of `object` with its path, depth first, keys in order.
    private static func fields(of object: [String: JSONValue], under prefix: [String]) -> [([String], JSONValue)] {
        object.keys.sorted().flatMap { key -> [([String], JSONValue)] in
            guard let value = object[key] else { return [] }
            let path = prefix + [key]
            if case .object(let members) = value { return [(path, value)] + fields(of: members, under: path) }
            return [(path, value)]
        }
    }

    /// `root` with the field at `path` set to `value` (removed when nil).
    private static func setting(_ path: ArraySlice<String>, to value: JSONValue?, in root: JSONValue) -> JSONValue {
        guard let key = path.first, case .object(var members) = root else { return value ?? root }
        if path.count == 1 {
            members[key] = value
        } else if let child = members[key] {
            members[key] = setting(path.dropFirst(), to: value, in: child)
        }
        return .object(members)
    }

    /// A value of another JSON type, named.
    private static func otherType(than value: JSONValue) -> (String, JSONValue) {
        switch value {
        case .string: ("a number", .integer(12345))
        case .integer, .number: ("a string", .string("12345"))
        case .bool: ("a string", .string("true"))
        case .null, .object, .array: ("a string", .string("probe"))
        }
    }

    private static func unknownField(avoiding object: [String: JSONValue]) -> String {
        var name = "unexpected_field"
        while object[name] != nil { name += "_" }
        return name
    }

    /// A body of `size` bytes: the JSON object with its first string field grown, or text.
    private static func oversized(_ json: JSONValue?, size: Int) -> Data {
        if case .object(let object)? = json,
            let key = object.keys.sorted().first(where: { if case .string = object[$0] { true } else { false } })
        {
            // The object written with a mark for the string, which is then grown in place:
            // written whole, a megabyte-long string is a megabyte more to escape.
            var grown = object
            let mark = "\u{1}"
            grown[key] = .string(mark)
            let parts = JSONValue.object(grown).description.components(separatedBy: JSONValue.string(mark).description)
            if parts.count == 2 {
                let (before, after) = (Data(parts[0].utf8 + [UInt8(ascii: "\"")]), Data([UInt8(ascii: "\"")] + parts[1].utf8))
                return before + Data(repeating: UInt8(ascii: "x"), count: max(0, size - before.count - after.count)) + after
            }
            // Another field holds the mark too: the string written whole.
            grown[key] = .string("")
            let overhead = JSONValue.object(grown).description.utf8.count
            grown[key] = .string(String(repeating: "x", count: max(0, size - overhead)))
            return Data(JSONValue.object(grown).description.utf8)
        }
        return Data(repeating: UInt8(ascii: "x"), count: size)
    }

    /// The top-level request fields each route (`METHOD path`) takes optionally: those that
    /// one interaction of the route sends and another, answered with a 2xx, leaves out —
    /// `POST /users` with and without `email`. Leaving such a field out is not bad input.
    ///
    /// ```swift
    /// let optional = ProbeVariant.optionalFields(in: contracts)
    /// optional["POST /users"]   // ["email"]
    /// ```
    public static func optionalFields(in contracts: [Contract]) -> [String: Set<String>] {
        var sent: [String: Set<String>] = [:]
        var accepted: [String: [Set<String>]] = [:]
        var declared: [String: Set<String>] = [:]
        for interaction in contracts.flatMap(\.interactions) {
            let fields: Set<String>
            let route = route(of: interaction)
            switch interaction.request.body {
            case .json(let matcher):
                switch matcher.kind {
                case .object(let members): fields = Set(members.keys)
                case .literal(.object(let members)): fields = Set(members.keys)
                default: continue
                }
            case .form(let form):
                fields = Set(form.names)
                // A form field written `optional: true` may be left out.
                declared[route, default: []].formUnion(form.fields.filter(\.value.optional).map(\.name))
            default:
                continue
            }
            sent[route, default: []].formUnion(fields)
            if (200..<300).contains(interaction.response.status) { accepted[route, default: []].append(fields) }
        }
        return sent.reduce(into: [:]) { optional, entry in
            let acceptedFields = accepted[entry.key, default: []]
            optional[entry.key] = entry.value.filter { field in acceptedFields.contains { !$0.contains(field) } }.union(
                declared[entry.key] ?? [])
        }
    }

    /// The key of ``optionalFields(in:)``: `METHOD path`, the path as the contract writes it.
    ///
    /// ```swift
    /// ProbeVariant.route(of: interaction)   // "POST /users"
    /// ```
    public static func route(of interaction: Interaction) -> String {
        "\(interaction.request.method.uppercased()) \(interaction.request.path)"
    }
}
