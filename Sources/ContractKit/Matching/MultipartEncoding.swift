import Foundation
import JOSE
import WebForms

/// `multipart/form-data` (RFC 7578) bodies: written with a boundary, and read back part by
/// part with limits (a part count, a header size, a boundary of RFC 2046's 1–70 characters)
/// so malformed input is a reason, never a crash.
///
/// ```swift
/// let boundary = MultipartEncoding.newBoundary()
/// let data = MultipartEncoding.encode([.init(name: "note", body: Data("hi".utf8))], boundary: boundary)
/// let parts = try MultipartEncoding.decode(data, boundary: boundary)   // one part, name "note"
/// ```
public enum MultipartEncoding {
    /// One part as sent or received.
    public struct Part: Sendable, Equatable {
        /// The form field name.
        public var name: String
        /// The file name, if the part is a file.
        public var filename: String?
        /// Headers other than `Content-Disposition`, in order.
        public var headers: [FormField.Text]
        /// The body.
        public var body: Data

        /// Creates a part.
        public init(name: String, filename: String? = nil, headers: [FormField.Text] = [], body: Data) {
            self.name = name
            self.filename = filename
            self.headers = headers
            self.body = body
        }

        /// The first value of header `name`, compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { isSameHeaderName($0.name, name) }?.value
        }
    }

    /// Why a body could not be read as multipart.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// The most parts ``decode(_:boundary:)`` reads.
    public static let maximumParts = 256
    /// The most bytes of headers one part may have.
    public static let maximumHeaderBytes = 16_384

    /// A fresh random boundary.
    public static func newBoundary() -> String {
        "contract-" + SecureRandom.base64URLText(length: 24)
    }

    /// The `Content-Type` value for a body with `boundary`.
    public static func contentType(boundary: String) -> String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// The boundary a `Content-Type` value gives (`multipart/form-data; boundary=…`, quoted
    /// or not), nil when it is no multipart type or has no usable boundary.
    public static func boundary(in contentType: String?) -> String? {
        guard let contentType, FormEncoding.mediaType(of: contentType)?.hasPrefix("multipart/") == true else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value =
                pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The body of `parts` between `boundary` lines.
    public static func encode(_ parts: [Part], boundary: String) -> Data {
        var data = Data()
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(quoted(part.name))\""
            if let filename = part.filename { head += "; filename=\"\(quoted(filename))\"" }
            head += "\r\n"
            for header in part.headers { head += "\(header.name): \(header.value)\r\n" }
            data.append(Data((head + "\r\n").utf8))
            data.append(part.body)
            data.append(Data("\r\n".utf8))
        }
        data.append(Data("--\(boundary)--\r\n".utf8))
        return data
    }

    /// The parts of a multipart body, in order.
    /// - Throws: ``Invalid`` with the reason: no opening boundary, a part without its end, no
    ///   `Content-Disposition: form-data` with a name, too many parts or too long headers.
    public static func decode(_ data: Data, boundary: String) throws -> [Part] {
        let bytes = [UInt8](data)
        let delimiter = Array("--\(boundary)".utf8)
        let crlf: [UInt8] = [13, 10]
        guard var position = find(delimiter, in: bytes, from: 0) else { throw Invalid(description: "no line --\(boundary) opens the body") }
        position += delimiter.count
        var parts: [Part] = []
        while true {
            if bytes[position...].starts(with: [45, 45]) { return parts }
            guard bytes[position...].starts(with: crlf) else {
                throw Invalid(description: "a boundary line is not followed by a line break")
            }
            guard parts.count < maximumParts else { throw Invalid(description: "more than \(maximumParts) parts") }
            let headerStart = position + 2
            guard let headerEnd = find(crlf + crlf, in: bytes, from: headerStart, limit: maximumHeaderBytes) else {
                throw Invalid(description: "part \(parts.count + 1) has no end of its headers within \(maximumHeaderBytes) bytes")
            }
            guard let bodyEnd = find(crlf + delimiter, in: bytes, from: headerEnd + 4) else {
                throw Invalid(description: "part \(parts.count + 1) is not closed by --\(boundary)")
            }
            parts.append(
                try part(headers: bytes[headerStart..<headerEnd], body: Data(bytes[(headerEnd + 4)..<bodyEnd]), number: parts.count + 1))
            position = bodyEnd + 2 + delimiter.count
        }
    }

    private static func part(headers: ArraySlice<UInt8>, body: Data, number: Int) throws -> Part {
        var name: String?
        var filename: String?
        var others: [FormField.Text] = []
        let text = String(decoding: headers, as: UTF8.self)
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw Invalid(description: "part \(number) has a header line without a colon")
            }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard isSameHeaderName(field, "Content-Disposition") else {
                others.append(FormField.Text(name: field, value: value))
                continue
            }
            let parameters = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parameters.first?.lowercased() == "form-data" else { throw Invalid(description: "part \(number) is not form-data") }
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                var parameterValue = pair[1]
                if parameterValue.count >= 2, parameterValue.hasPrefix("\""), parameterValue.hasSuffix("\"") {
                    parameterValue = String(parameterValue.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                }
                switch pair[0].lowercased() {
                case "name": name = parameterValue
                case "filename": filename = parameterValue
                default: break
                }
            }
        }
        guard let name else { throw Invalid(description: "part \(number) has no Content-Disposition: form-data; name=\"…\"") }
        return Part(name: name, filename: filename, headers: others, body: body)
    }

    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    /// Where `needle` first starts in `bytes` at or after `start` (and before `start + limit`).
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, limit: Int = .max) -> Int? {
        guard let first = needle.first, start <= bytes.count else { return nil }
        let last = Swift.min(bytes.count - needle.count, limit == .max ? .max : start + limit)
        guard last >= start else { return nil }
        var index = start
        while index <= last {
            if bytes[index] == first && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
