import ContractKit
import Foundation
import WebForms

extension ProbeVariant {
    /// The bad-input bodies of a form (fields in their order): each field missing and empty
    /// (but those in `optional`: RFC 6749 §3.1 has a field without a value read as omitted),
    /// and sent twice. No unknown extra field: an OAuth server ignores those (§3.1).
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
            if !field.value.isEmpty, !optional.contains(field.name) {
                var empty = fields
                empty[index].value = ""
                variants.append(("form field \(field.name) empty", encoded(empty)))
            }
        }
        return variants
    }
}
