/// A path into a JSON value: `$`, `$.a.b`, `$.items[0].id`, `$["odd key"]`. A key after a
/// string that is a compact JWT reads its payload: `$.access_token.sub`.
///
/// ```swift
/// let path = try JSONPath("$.tokens[0].value")
/// path.value(in: body)   // the value, or nil when absent
/// ```
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps from the root.
    public let components: [Component]
    /// The path as written.
    public let description: String

    /// A path that does not parse, with the reason.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// Why.
        public let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Parses `text`.
    public init(_ text: String) throws {
        description = text
        // Without wildcards no `anyKey` or `anyIndex` comes back.
        components = try Self.steps(text, wildcards: false).compactMap { step in
            switch step {
            case .key(let key): .key(key)
            case .index(let index): .index(index)
            case .anyKey, .anyIndex: nil
            }
        }
    }

    /// One step of a path as written, wildcards included (Pact's matching-rule paths have them).
    package enum Step: Equatable {
        case key(String)
        case anyKey
        case index(Int)
        case anyIndex
    }

    /// The steps of `text`: `.name`, `[0]`, `['odd key']` or `["odd key"]`, and with
    /// `wildcards` also `.*` and `[*]` (without, `.*` is the key `*` and `[*]` an error).
    /// - Throws: ``Invalid`` with the reason.
    package static func steps(_ text: String, wildcards: Bool) throws -> [Step] {
        var characters = Substring(text)
        guard characters.first == "$" else { throw Invalid(description: "a path must start with '$', as in $.access_token") }
        characters = characters.dropFirst()
        var steps: [Step] = []
        while let first = characters.first {
            if first == "." {
                characters = characters.dropFirst()
                let name = characters.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty else { throw Invalid(description: "empty key after '.' in \(text)") }
                steps.append(wildcards && name == "*" ? .anyKey : .key(String(name)))
                characters = characters.dropFirst(name.count)
            } else if first == "[" {
                guard let close = characters.firstIndex(of: "]") else { throw Invalid(description: "unclosed '[' in \(text)") }
                let inside = characters[characters.index(after: characters.startIndex)..<close]
                if wildcards && inside == "*" {
                    steps.append(.anyIndex)
                } else if let index = Int(inside), index >= 0 {
                    steps.append(.index(index))
                } else if inside.count >= 2, let quote = inside.first, quote == "\"" || quote == "'", inside.last == quote {
                    steps.append(.key(String(inside.dropFirst().dropLast())))
                } else {
                    throw Invalid(description: "'[\(inside)]' is neither an index nor a quoted key in \(text)")
                }
                characters = characters[characters.index(after: close)...]
            } else {
                throw Invalid(description: "unexpected '\(first)' in \(text)")
            }
        }
        return steps
    }

    /// The path of `components`, written as `$.a[0]` (`$["odd key"]` where needed).
    package init(components: [Component]) {
        self.components = components
        var text = "$"
        for component in components {
            switch component {
            case .key(let key): text = Matcher.childPath(text, key)
            case .index(let index): text += "[\(index)]"
            }
        }
        description = text
    }

    /// The value at this path, nil when any step is absent.
    public func value(in root: JSONValue) -> JSONValue? {
        var current = root
        for component in components {
            switch (component, current) {
            case (.key(let key), .object(let members)):
                guard let next = members[key] else { return nil }
                current = next
            case (.index(let index), .array(let elements)):
                guard elements.indices.contains(index) else { return nil }
                current = elements[index]
            case (.key(let key), .string(let text)):
                // A path may continue into a JWT: `$.access_token.sub` is its `sub` claim.
                guard case .object(let claims)? = JWTShape.payload(of: text), let next = claims[key] else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// The matcher that describes the value at this path in what `root` describes, nil
    /// when the path leaves it (or passes a matcher with no structure, such as `any`).
    public func matcher(in root: Matcher) -> Matcher? {
        var current = root
        for component in components {
            switch (component, current.kind) {
            case (.key(let key), .object(let members)):
                guard let next = members[key] else { return nil }
                current = next
            case (.index(let index), .array(let elements)):
                guard elements.indices.contains(index) else { return nil }
                current = elements[index]
            case (.key(let key), .typed(let kind)):
                guard let next = kind.matcher(forKey: key) else { return nil }
                current = next
            case (.index(let index), .typed(let kind)):
                guard let next = kind.matcher(forIndex: index) else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }
}
