/// Which of the variants a contract allows a provider was seen answering with: each
/// alternative of a `one_of` and both sides of an optional key (there and left out). A
/// contract that allows what the provider never does is drift too: `contract verify` feeds
/// every live response in (`observe(_:in:site:location:)`) and reports ``unseen``.
///
/// Variants are counted per place, not per interaction: a place is the request's method and
/// path, the status and the JSON path (array elements as `[*]`), so two interactions that
/// show `GET /me`'s 200 between them may show both sides of its optional `email`.
///
/// ```swift
/// var coverage = VariantCoverage()
/// coverage.observe(interaction.response, in: liveJSON, site: "GET /me 200", location: interaction.location)
/// for variant in coverage.unseen { print(variant) }   // GET /me 200 $.email: never absent (me.yaml:12)
/// ```
public struct VariantCoverage: Sendable {
    /// A variant the contracts allow and no observed response showed.
    public struct Unseen: Sendable, Equatable, CustomStringConvertible {
        /// `METHOD path status` and the JSON path.
        public let place: String
        /// What was never seen (`never absent`, `never one_of alternative 2: null`).
        public let variant: String
        /// Where the contracts allow it.
        public let locations: [SourceLocation]

        /// `place: variant (file:line, …)`.
        public var description: String {
            "\(place): \(variant) (" + locations.map(\.description).joined(separator: ", ") + ")"
        }
    }

    private struct Site {
        /// For a `one_of`: the alternatives' summaries; nil for an optional key.
        var alternatives: [String]?
        /// The alternatives seen, or 0 for present and 1 for absent.
        var seen: Set<Int> = []
        var locations: [SourceLocation] = []
    }

    private var sites: [String: Site] = [:]
    private var order: [String] = []

    /// Creates an empty record.
    public init() {}

    /// Records the variants of `matcher` that `value` shows (nil: the response had no JSON
    /// body, so only the places are registered).
    public mutating func observe(_ matcher: Matcher, in value: JSONValue?, site: String, location: SourceLocation) {
        walk(matcher, value, at: "$", site: site, location: location)
    }

    /// Records a response's body against its spec: `value` is the JSON body, or for a form the
    /// object of its fields (``FormBody/object(of:)``), whose optional fields count as keys.
    public mutating func observe(_ response: ResponseSpec, in value: JSONValue?, site: String, location: SourceLocation) {
        switch response.body {
        case .json(let matcher): observe(matcher, in: value, site: site, location: location)
        case .form(let form): observe(form.objectMatcher, in: value, site: site, location: location)
        case .unspecified, .text: return
        }
    }

    /// Every variant allowed and never seen, in the order their places were first met.
    public var unseen: [Unseen] {
        order.flatMap { key -> [Unseen] in
            guard let site = sites[key] else { return [] }
            if let alternatives = site.alternatives {
                return alternatives.indices.filter { !site.seen.contains($0) }.map {
                    Unseen(place: key, variant: "never one_of alternative \($0 + 1): \(alternatives[$0])", locations: site.locations)
                }
            }
            return [(0, "never present"), (1, "never absent")].filter { !site.seen.contains($0.0) }.map {
                Unseen(place: key, variant: $0.1, locations: site.locations)
            }
        }
    }

    private mutating func register(_ key: String, alternatives: [String]?, location: SourceLocation) {
        if sites[key] == nil {
            sites[key] = Site(alternatives: alternatives)
            order.append(key)
        }
        if sites[key]?.locations.contains(location) == false { sites[key]?.locations.append(location) }
    }

    private mutating func walk(_ matcher: Matcher, _ value: JSONValue?, at path: String, site: String, location: SourceLocation) {
        switch matcher.kind {
        case .object(let members):
            var object: [String: JSONValue]?
            if case .object(let members)? = value { object = members }
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                let child = Matcher.childPath(path, key)
                if member.optional {
                    let place = "\(site) \(child)"
                    register(place, alternatives: nil, location: location)
                    if let object { sites[place]?.seen.insert(object[key] == nil ? 1 : 0) }
                }
                walk(member, object?[key], at: child, site: site, location: location)
            }
        case .array(let elements):
            var array: [JSONValue]?
            if case .array(let values)? = value { array = values }
            for (index, element) in elements.enumerated() {
                walk(element, array.flatMap { index < $0.count ? $0[index] : nil }, at: "\(path)[\(index)]", site: site, location: location)
            }
        case .literal:
            break
        case .typed(let kind):
            if let alternatives = kind.alternatives {
                walkAlternatives(alternatives, value, at: path, site: site, location: location)
            } else if kind.jsonType == "array", let element = kind.matcher(forIndex: 0) {
                walkEach(element, value, at: path, site: site, location: location)
            }
        }
    }

    /// Each element of an array against `element`.
    private mutating func walkEach(_ element: Matcher, _ value: JSONValue?, at path: String, site: String, location: SourceLocation) {
        guard case .array(let values)? = value, !values.isEmpty else {
            walk(element, nil, at: "\(path)[*]", site: site, location: location)
            return
        }
        for item in values { walk(element, item, at: "\(path)[*]", site: site, location: location) }
    }

    /// Which of `alternatives` the value matched, and the places inside each.
    private mutating func walkAlternatives(
        _ alternatives: [Matcher], _ value: JSONValue?, at path: String, site: String, location: SourceLocation
    ) {
        let place = "\(site) \(path)"
        register(place, alternatives: alternatives.map(\.summary), location: location)
        var walked = false
        for (index, alternative) in alternatives.enumerated() {
            let matches = value.map { alternative.mismatches(in: $0).isEmpty } ?? false
            if matches { sites[place]?.seen.insert(index) }
            // The places inside the first alternative it matched see the value; the
            // others' are registered, unseen.
            walk(alternative, matches && !walked ? value : nil, at: path, site: site, location: location)
            walked = walked || matches
        }
    }
}
