import Foundation

/// The words of authd's pages in each language it speaks (`Web/Messages/<language>.json`,
/// embedded in the binary), and which of them a browser reads best, from its
/// `Accept-Language` (RFC 9110 §12.5.4). A message may name values in braces
/// (`{username}`), filled in per page.
///
/// ```swift
/// let catalogue = MessageCatalogue.builtIn
/// let language = catalogue.language(accepting: "ja,en;q=0.8")        // "ja"
/// catalogue.messages(in: language, values: ["username": "alice"])["verify_intro"]
/// ```
public struct MessageCatalogue: Sendable {
    /// The languages, the first the default.
    public let languages: [String]
    /// Each language's messages by key.
    public let messages: [String: [String: String]]

    /// English and Japanese, as embedded.
    public static let builtIn: MessageCatalogue = {
        do {
            return try MessageCatalogue(["en": PackageResources.en_json, "ja": PackageResources.ja_json], default: "en")
        } catch {
            preconditionFailure("the embedded message catalogues are JSON objects of strings: \(error)")
        }
    }()

    /// Catalogues from each language's JSON object of strings; `default` first.
    public init(_ catalogues: [String: [UInt8]], default: String) throws {
        messages = try catalogues.mapValues { try JSONDecoder().decode([String: String].self, from: Data($0)) }
        languages = [`default`] + catalogues.keys.filter { $0 != `default` }.sorted()
    }

    /// The language to answer an `Accept-Language` of `header` in: the listed language of
    /// highest weight that the catalogue has (by its primary subtag, so `ja-JP` is `ja`), the
    /// default when none is (or `*` comes first).
    public func language(accepting header: String?) -> String {
        guard let header else { return languages[0] }
        var ranked: [(tag: String, weight: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { ranked.append((tag.lowercased(), weight, order)) }
        }
        ranked.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }
        for entry in ranked {
            if entry.tag == "*" { return languages[0] }
            let primary = String(entry.tag.split(separator: "-").first ?? "")
            if messages[primary] != nil { return primary }
        }
        return languages[0]
    }

    /// The messages of `language` with `values` filled in (`{name}` → its value).
    public func messages(in language: String, values: [String: String] = [:]) -> [String: String] {
        let chosen = messages[language] ?? messages[languages[0]] ?? [:]
        guard !values.isEmpty else { return chosen }
        return chosen.mapValues { message in
            values.reduce(message) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
        }
    }
}
