import ContractKit
import Foundation

extension ProbeVariant {
    /// The bad-input bodies of a form (fields in their order): each field missing (but those
    /// in `optional`), sent twice and empty, and an unknown extra field.
    static func formVariants(of fields: [(name: String, value: String)], optional: Set<String>) -> [(name: String, body: Data)] {
        func encoded(_ fields: [(name: String, value: String)]) -> Data { Data(FormEncoding.encode(fields).utf8) }
        var variants: [(name: String, body: Data)] = []
        for (index, field) in fields.enumerated() {
            var without = fields
            without.remove(at: index)
            if !optional.contains(field.name) { variants.append(("form field \(field.name) missing", encoded(without))) }
            var twice = fields
            twice.insert(field, at: index + 1)
            variants.append(("form field \(field.name) duplicated", encoded(twice)))
            if !field.value.isEmpty {
                var empty = fields
                empty[index].value = ""
                variants.append(("form field \(field.name) empty", encoded(empty)))
            }
        }
        var name = "unexpected_field"
        while fields.contains(where: { $0.name == name }) { name += "_" }
        variants.append(("an unknown extra form field", encoded(fields + [(name, "probe")])))
        return variants
    }
}
