/// A page read leniently, as a contract needs it: its elements with their attributes and text,
/// for ``HTMLSelector``s to find (a hidden input's `value`, `html[lang]`). It is not an HTML5
/// tree builder: tags nest as written, an end tag closes up to its open element (one with no
/// open element is ignored), void elements (`input`, `meta`, …) never hold content, `script`,
/// `style`, `textarea` and `title` hold text up to their end tag, and character references are
/// decoded in text and attribute values. Any input gives a document, in time linear in its length
/// (fuzzed in the tests); nothing recurses over the page's depth.
///
/// ```swift
/// let page = HTMLDocument(parsing: #"<form><input type="hidden" name="csrf" value="a&amp;b"></form>"#)
/// page.elements[1].attributes["value"]   // "a&b"
/// ```
public struct HTMLDocument: Sendable {
    /// One element: its lower-cased name, its attributes (names lower-cased, the first of a
    /// repeated one kept), where it sits, and which text and elements it holds.
    public struct Element: Sendable {
        /// The tag name, lower-cased.
        public let name: String
        /// Attributes by lower-cased name, values decoded.
        public let attributes: [String: String]
        /// The enclosing element's index, nil at the top.
        public let parent: Int?
        /// The elements inside it are those after it up to this index (exclusive).
        public fileprivate(set) var descendantsEnd: Int
        /// Its text is the text runs from `textStart` up to `textEnd` (exclusive).
        fileprivate let textStart: Int
        fileprivate var textEnd: Int

        /// The classes of its `class` attribute.
        public var classes: [Substring] {
            attributes["class"].map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }) }
                ?? []
        }
    }

    /// Every element, in document order.
    public private(set) var elements: [Element] = []
    /// The text runs, in document order.
    private var texts: [String] = []

    /// The text inside element `index` (its own and its descendants'), with runs of white
    /// space made one space and the ends trimmed, as a reader sees it.
    public func text(of index: Int) -> String {
        let element = elements[index]
        let joined = texts[element.textStart..<element.textEnd].joined()
        return joined.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\u{0C}" }).joined(
            separator: " ")
    }

    /// The elements `selector` selects, in document order.
    public func select(_ selector: HTMLSelector) -> [Int] {
        elements.indices.filter { selector.matches(element: $0, in: self) }
    }

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]
    static let rawTextElements: Set<String> = ["script", "style", "textarea", "title"]
    /// An open element of these names is closed by a new one of the same name (`<li>a<li>b`).
    static let selfClosingSiblings: Set<String> = ["p", "li", "option", "tr", "td", "th", "dt", "dd"]

    /// Reads `text`.
    public init(parsing text: String) {
        let bytes = Array(text.utf8)
        var open: [Int] = []
        var position = 0
        var pendingText: [UInt8] = []

        func flushText() {
            guard !pendingText.isEmpty else { return }
            texts.append(Self.decodeReferences(pendingText))
            pendingText.removeAll(keepingCapacity: true)
        }
        func close(_ index: Int) {
            elements[index].descendantsEnd = elements.count
            elements[index].textEnd = texts.count
        }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

        while position < bytes.count {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "<"), position + 1 < bytes.count else {
                pendingText.append(byte)
                position += 1
                continue
            }
            let next = bytes[position + 1]
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                flushText()
                if bytes[position...].starts(with: Array("<!--".utf8)) {
                    position = Self.index(of: Array("-->".utf8), in: bytes, from: position + 4).map { $0 + 3 } ?? bytes.count
                } else {
                    position = (bytes[position...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.count - 1) + 1
                }
                continue
            }
            if next == UInt8(ascii: "/"), position + 2 < bytes.count, isLetter(bytes[position + 2]) {
                flushText()
                var cursor = position + 2
                let name = Self.readName(bytes, &cursor)
                position = (bytes[cursor...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.count - 1) + 1
                if let depth = open.lastIndex(where: { elements[$0].name == name }) {
                    for index in open[depth...].reversed() { close(index) }
                    open.removeSubrange(depth...)
                }
                continue
            }
            guard isLetter(next) else {
                pendingText.append(byte)
                position += 1
                continue
            }
            flushText()
            var cursor = position + 1
            let name = Self.readName(bytes, &cursor)
            let attributes = Self.readAttributes(bytes, &cursor)
            position = cursor
            if Self.selfClosingSiblings.contains(name), let last = open.last, elements[last].name == name {
                close(last)
                open.removeLast()
            }
            elements.append(
                Element(
                    name: name, attributes: attributes, parent: open.last, descendantsEnd: elements.count + 1, textStart: texts.count,
                    textEnd: texts.count))
            let index = elements.count - 1
            if Self.voidElements.contains(name) { continue }
            if Self.rawTextElements.contains(name) {
                let end = Self.index(ofEndTag: name, in: bytes, from: position) ?? bytes.count
                let content = Array(bytes[position..<end])
                if !content.isEmpty {
                    texts.append(
                        name == "script" || name == "style" ? String(decoding: content, as: UTF8.self) : Self.decodeReferences(content))
                }
                close(index)
                position = end < bytes.count ? (bytes[end...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.count - 1) + 1 : end
                continue
            }
            open.append(index)
        }
        flushText()
        for index in open.reversed() { close(index) }
    }

    /// A tag or attribute name from `cursor`, lower-cased.
    private static func readName(_ bytes: [UInt8], _ cursor: inout Int) -> String {
        let start = cursor
        while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != UInt8(ascii: ">"), bytes[cursor] != UInt8(ascii: "/"),
            bytes[cursor] != UInt8(ascii: "=")
        {
            cursor += 1
        }
        return String(decoding: bytes[start..<cursor], as: UTF8.self).lowercased()
    }

    /// A start tag's attributes, `cursor` left after its `>`.
    private static func readAttributes(_ bytes: [UInt8], _ cursor: inout Int) -> [String: String] {
        var attributes: [String: String] = [:]
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: ">") {
                cursor += 1
                return attributes
            }
            if isSpace(byte) || byte == UInt8(ascii: "/") {
                cursor += 1
                continue
            }
            var name = readName(bytes, &cursor)
            if name.isEmpty {
                // A stray `=`: kept as a name, as browsers do.
                name = "="
                cursor += 1
            }
            while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
            var value = ""
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") {
                cursor += 1
                while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") {
                    let quote = bytes[cursor]
                    let start = cursor + 1
                    let end = bytes[start...].firstIndex(of: quote) ?? bytes.count
                    value = decodeReferences(Array(bytes[start..<end]))
                    cursor = min(end + 1, bytes.count)
                } else {
                    let start = cursor
                    while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != UInt8(ascii: ">") { cursor += 1 }
                    value = decodeReferences(Array(bytes[start..<cursor]))
                }
            }
            if attributes[name] == nil { attributes[name] = value }
        }
        return attributes
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    private static func index(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count, needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// Where `</name` starts (any case), from `start`.
    private static func index(ofEndTag name: String, in bytes: [UInt8], from start: Int) -> Int? {
        let needle = Array("</\(name)".utf8)
        var index = start
        while let found = Self.index(of: [UInt8(ascii: "<"), UInt8(ascii: "/")], in: bytes, from: index) {
            let end = found + needle.count
            if end <= bytes.count, zip(bytes[found..<end], needle).allSatisfy({ $0 | 0x20 == $1 | 0x20 }),
                end == bytes.count || isSpace(bytes[end]) || bytes[end] == UInt8(ascii: ">") || bytes[end] == UInt8(ascii: "/")
            {
                return found
            }
            index = found + 2
        }
        return nil
    }

    static let namedReferences: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "middot": "·", "copy": "©", "hellip": "…",
        "mdash": "—", "ndash": "–", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“",
    ]

    /// `bytes` as text with `&name;`, `&#NN;` and `&#xHH;` decoded; an unknown or broken
    /// reference stays as written.
    static func decodeReferences(_ bytes: [UInt8]) -> String {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "&"),
                let semicolon = bytes[(index + 1)..<min(bytes.count, index + 34)].firstIndex(of: UInt8(ascii: ";"))
            else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let name = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                decoded = namedReferences[name]
            }
            if let decoded, !decoded.isEmpty, decoded != "\u{0}" {
                output.append(contentsOf: decoded.utf8)
                index = semicolon + 1
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension String {
    /// This text with `&`, `<`, `>` and `"` as references, for an element's text or an
    /// attribute's value (XML's as well as HTML's): what ``HTMLDocument`` reads back.
    package var markupEscaped: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
