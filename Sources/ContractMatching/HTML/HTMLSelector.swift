/// A CSS selector over an ``HTMLDocument``, the part of Selectors Level 4 a contract needs to
/// point at a form field or a page's language: type (`input`, `*`), `#id`, `.class`, attribute
/// selectors (`[name]`, `[name=value]`, `~=`, `|=`, `^=`, `$=`, `*=`, values quoted or not,
/// an ` i` flag for case), the descendant (` `) and child (`>`) combinators, and lists (`a, b`).
/// Pseudo-classes and the sibling combinators are refused with a reason when read.
///
/// ```swift
/// let selector = try HTMLSelector(#"form input[type="hidden"][name=csrf]"#)
/// page.select(selector).map { page.elements[$0].attributes["value"] }
/// ```
public struct HTMLSelector: Sendable, Hashable, CustomStringConvertible {
    /// Why a selector could not be read.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    struct Attribute: Hashable {
        enum Operation: String {
            case exists = "", equals = "=", word = "~=", prefixDash = "|=", prefix = "^=", suffix = "$=", contains = "*="
        }
        let name: String
        let operation: Operation
        let value: String
        let ignoringCase: Bool

        func matches(_ found: String?) -> Bool {
            guard let found else { return false }
            let actual = ignoringCase ? found.lowercased() : found
            let value = ignoringCase ? self.value.lowercased() : self.value
            switch operation {
            case .exists: return true
            case .equals: return actual == value
            case .word: return !value.isEmpty && actual.split(separator: " ").contains { $0 == value }
            case .prefixDash: return actual == value || actual.hasPrefix(value + "-")
            case .prefix: return !value.isEmpty && actual.hasPrefix(value)
            case .suffix: return !value.isEmpty && actual.hasSuffix(value)
            case .contains: return !value.isEmpty && actual.contains(value)
            }
        }
    }

    /// `tag#id.class[attr]`: every part must hold.
    struct Compound: Hashable {
        var name: String?
        var id: String?
        var classes: [String] = []
        var attributes: [Attribute] = []

        func matches(_ element: HTMLDocument.Element) -> Bool {
            if let name, element.name != name { return false }
            if let id, element.attributes["id"] != id { return false }
            if !classes.isEmpty {
                let own = element.classes
                guard classes.allSatisfy({ wanted in own.contains { $0 == wanted } }) else { return false }
            }
            return attributes.allSatisfy { $0.matches(element.attributes[$0.name]) }
        }
    }

    /// Compounds left to right; `childOf[i]`: compound `i + 1` must be a child of compound
    /// `i`'s element (`>`), else a descendant.
    struct Complex: Hashable {
        var compounds: [Compound]
        var childOf: [Bool]
    }

    let alternatives: [Complex]
    /// The selector as written.
    public let description: String

    /// Reads `text`.
    /// - Throws: ``Invalid`` with the reason.
    public init(_ text: String) throws {
        description = text
        var reader = Reader(Array(text.unicodeScalars))
        var alternatives: [Complex] = []
        repeat {
            alternatives.append(try reader.complex())
        } while reader.consume(",")
        reader.skipSpace()
        guard reader.atEnd else { throw Invalid(description: "unexpected '\(reader.rest)' in selector '\(text)'") }
        self.alternatives = alternatives
    }

    /// Whether element `index` of `document` is selected.
    public func matches(element index: Int, in document: HTMLDocument) -> Bool {
        alternatives.contains { Self.matches($0, upTo: $0.compounds.count - 1, element: index, in: document) }
    }

    /// Whether compounds `0...last` match with compound `last` at element `index`: the chain of
    /// ancestors is walked upwards; the recursion is as deep as the selector, not the page.
    private static func matches(_ complex: Complex, upTo last: Int, element index: Int, in document: HTMLDocument) -> Bool {
        guard complex.compounds[last].matches(document.elements[index]) else { return false }
        guard last > 0 else { return true }
        var ancestor = document.elements[index].parent
        if complex.childOf[last - 1] {
            return ancestor.map { matches(complex, upTo: last - 1, element: $0, in: document) } ?? false
        }
        while let current = ancestor {
            if matches(complex, upTo: last - 1, element: current, in: document) { return true }
            ancestor = document.elements[current].parent
        }
        return false
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { position >= scalars.count }
        var rest: String { String(String.UnicodeScalarView(scalars[position...])) }
        var current: Unicode.Scalar? { atEnd ? nil : scalars[position] }

        mutating func skipSpace() {
            while let current, current.properties.isWhitespace { position += 1 }
        }

        mutating func consume(_ text: String) -> Bool {
            skipSpace()
            let wanted = Array(text.unicodeScalars)
            guard position + wanted.count <= scalars.count, Array(scalars[position..<position + wanted.count]) == wanted else {
                return false
            }
            position += wanted.count
            return true
        }

        static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" || scalar.value > 0x7F
        }

        mutating func identifier(_ what: String) throws -> String {
            let start = position
            while let current, Self.isNameScalar(current) { position += 1 }
            guard position > start else {
                throw Invalid(description: "expected \(what)" + (atEnd ? " at the end" : " before '\(rest)'"))
            }
            return String(String.UnicodeScalarView(scalars[start..<position]))
        }

        mutating func complex() throws -> Complex {
            skipSpace()
            var compounds = [try compound()]
            var childOf: [Bool] = []
            while true {
                let before = position
                skipSpace()
                guard let current, current != "," else { break }
                if current == ">" {
                    position += 1
                    skipSpace()
                    childOf.append(true)
                } else if current == "+" || current == "~" {
                    throw Invalid(description: "the sibling combinator '\(current)' is not supported")
                } else if position > before {
                    childOf.append(false)
                } else {
                    throw Invalid(description: "unexpected '\(rest)'")
                }
                compounds.append(try compound())
            }
            return Complex(compounds: compounds, childOf: childOf)
        }

        mutating func compound() throws -> Compound {
            var compound = Compound()
            var read = false
            if current == "*" {
                position += 1
                read = true
            } else if let current, Self.isNameScalar(current) {
                compound.name = try identifier("a type").lowercased()
                read = true
            }
            while let current {
                switch current {
                case "#":
                    position += 1
                    compound.id = try identifier("an id after '#'")
                case ".":
                    position += 1
                    compound.classes.append(try identifier("a class after '.'"))
                case "[":
                    position += 1
                    compound.attributes.append(try attribute())
                case ":":
                    throw Invalid(description: "pseudo-classes such as '\(rest)' are not supported")
                default:
                    guard read else { throw Invalid(description: atEnd ? "a selector is empty" : "unexpected '\(rest)'") }
                    return compound
                }
                read = true
            }
            guard read else { throw Invalid(description: "a selector is empty") }
            return compound
        }

        mutating func attribute() throws -> Attribute {
            skipSpace()
            let name = try identifier("an attribute name after '['").lowercased()
            skipSpace()
            var operation = Attribute.Operation.exists
            var value = ""
            var ignoringCase = false
            if current != "]" {
                let operations: [Attribute.Operation] = [.word, .prefixDash, .prefix, .suffix, .contains, .equals]
                guard let found = operations.first(where: { consume($0.rawValue) }) else {
                    throw Invalid(description: "expected ']' or an operator such as '=' in [\(name)…]")
                }
                operation = found
                skipSpace()
                if let quote = current, quote == "\"" || quote == "'" {
                    position += 1
                    let start = position
                    while let current, current != quote { position += 1 }
                    guard !atEnd else { throw Invalid(description: "an attribute value's quote is not closed") }
                    value = String(String.UnicodeScalarView(scalars[start..<position]))
                    position += 1
                } else {
                    value = try identifier("a value after '\(operation.rawValue)'")
                }
                skipSpace()
                if current == "i" || current == "I" {
                    position += 1
                    ignoringCase = true
                    skipSpace()
                }
            }
            guard current == "]" else { throw Invalid(description: "expected ']' to close [\(name)…]") }
            position += 1
            return Attribute(name: name, operation: operation, value: value, ignoringCase: ignoringCase)
        }
    }
}
