import AuthServer
import Foundation
import Testing

/// The templates and their words: every language has every message, and every message a
/// template names exists.
@Suite struct WebPagesTests {
    static let templates = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/AuthServer/Web/Templates")

    @Test func everyLanguageHasEveryMessage() {
        let catalogue = MessageCatalogue.builtIn
        #expect(catalogue.languages == ["en", "ja"])
        let english = Set(catalogue.messages["en"]?.keys ?? [:].keys)
        #expect(!english.isEmpty)
        for language in catalogue.languages {
            #expect(Set(catalogue.messages[language]?.keys ?? [:].keys) == english, "\(language)")
        }
    }

    @Test func everyMessageATemplateNamesExists() throws {
        let english = MessageCatalogue.builtIn.messages["en"] ?? [:]
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.templates.path).filter { $0.hasSuffix(".mustache") }
        #expect(files.count >= 4)
        for file in files {
            let text = try String(contentsOf: Self.templates.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("{{{"), "\(file) writes a value unescaped")
            for key in text.matches(of: /\{\{t\.([a-z_]+)\}\}/).map({ String($0.1) }) {
                #expect(english[key] != nil, "\(file) names t.\(key)")
            }
        }
    }

    @Test(
        arguments: [
            (nil, "en"), ("ja", "ja"), ("ja-JP", "ja"), ("fr-CA, fr;q=0.9", "en"), ("fr, ja;q=0.1", "ja"), ("*, ja;q=0.5", "en"),
            ("ja;q=0, en", "en"), ("EN-gb;q=0.5, JA;q=0.6", "ja"), ("ja;q=abc", "en"), (",,;", "en"),
        ] as [(String?, String)])
    func theLanguageIsTheBrowsersFirstChoiceThatAuthdSpeaks(header: String?, language: String) {
        #expect(MessageCatalogue.builtIn.language(accepting: header) == language)
    }
}
