import Foundation
import WebForms

extension FormBody {
    /// The encoded body, fields in order, each field's text made by `text` (a request's
    /// sample with saved values filled in, a stub's generated answer).
    ///
    /// ```swift
    /// let data = try form.encoded { try $0.value.sampleText(with: saved, at: "form \($0.name)") }
    /// ```
    public func encoded(_ text: (FormField) throws -> String) rethrows -> Data {
        Data(FormEncoding.encode(try fields.map { (name: $0.name, value: try text($0)) }).utf8)
    }

    /// Every way a received form body breaks these fields, each at `form NAME`: a body that is
    /// no form, a required field missing, a field given more than once, a value that fails
    /// its matcher; with `strict`, a field the contract does not list.
    ///
    /// ```swift
    /// form.mismatches(in: Data("token_type=Bearer".utf8), strict: false)   // []
    /// ```
    public func mismatches(in body: Data, strict: Bool) -> [Mismatch] {
        guard let received = FormEncoding.decode(body) else {
            let text = String(decoding: body.prefix(80), as: UTF8.self)
            return [
                Mismatch(
                    path: "body", expected: "a form body (\(Self.contentType))",
                    actual: body.isEmpty ? "an empty body" : "text \(JSONValue.string(text))")
            ]
        }
        var found: [Mismatch] = []
        for field in fields {
            let values = received.filter { $0.name == field.name }.map(\.value)
            let place = "form \(field.name)"
            switch values.count {
            case 0 where field.value.optional: continue
            case 0: found.append(Mismatch(path: place, expected: field.value.summary, actual: "nothing (field missing)"))
            case 1: found += field.value.mismatches(inText: values[0], at: place)
            default: found.append(Mismatch(path: place, expected: "one value", actual: "\(values.count) values (the field is repeated)"))
            }
        }
        if strict {
            let names = Set(self.names)
            for name in Self.orderedNames(received) where !names.contains(name) {
                found.append(Mismatch(path: "form \(name)", expected: "no such field (strict)", actual: "a value"))
            }
        }
        return found
    }

    /// A received form as a JSON object of strings (the first value of each field), for what
    /// compares or saves forms as JSON; nil when `body` is no form.
    ///
    /// ```swift
    /// FormBody.object(of: Data("a=1&b=x".utf8))   // {"a": "1", "b": "x"}
    /// ```
    public static func object(of body: Data) -> JSONValue? {
        guard let received = FormEncoding.decode(body) else { return nil }
        var members: [String: JSONValue] = [:]
        for field in received where members[field.name] == nil { members[field.name] = .string(field.value) }
        return .object(members)
    }

    /// The distinct names of `fields`, in first-seen order.
    static func orderedNames(_ fields: [(name: String, value: String)]) -> [String] {
        var seen = Set<String>()
        return fields.map(\.name).filter { seen.insert($0).inserted }
    }
}
