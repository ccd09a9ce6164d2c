import Foundation
import ProcessKit
import Testing

/// The command-line references (`Sources/authd/authd.docc/authd.md`,
/// `Sources/contract/contract.docc/contract.md`) are generated from the commands by
/// swift-argument-parser's plugin (`scripts/cli-reference`). This test reads what the built
/// tools say of themselves (`--experimental-dump-help`, the plugin's own input) and fails when
/// a reference lacks a command, lists one that is gone, or a command's section lacks its
/// abstract or one of its options: then the reference is stale.
@Suite struct CLIReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: ["authd", "contract"])
    func theReferenceIsTheCommandsOwn(tool: String) throws {
        let dump = try CommandRunner.run(try ContractCLITests.binary(tool), ["--experimental-dump-help"])
        #expect(dump.status == 0)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        let command = try #require(info["command"] as? [String: Any])
        let file = Self.root.appendingPathComponent("Sources/\(tool)/\(tool).docc/\(tool).md")
        let reference = try String(contentsOf: file, encoding: .utf8)
        let sections = Self.sections(of: reference)
        var expected: [String] = []
        Self.check(command, path: [], sections: sections, expected: &expected)
        #expect(Set(sections.keys) == Set(expected), "stale \(file.lastPathComponent): run scripts/cli-reference")
    }

    /// Each heading's title (`authd.user.add`) and the text under it.
    static func sections(of markdown: String) -> [String: String] {
        var sections: [String: String] = [:]
        var current: String?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#"), let space = line.firstIndex(of: " ") {
                current = String(line[line.index(after: space)...])
                sections[current ?? ""] = ""
            } else if let current {
                sections[current, default: ""] += line + "\n"
            }
        }
        return sections
    }

    static func check(_ command: [String: Any], path: [String], sections: [String: String], expected: inout [String]) {
        guard let name = command["commandName"] as? String, command["shouldDisplay"] as? Bool != false else { return }
        let title = (path + [name]).joined(separator: ".")
        expected.append(title)
        let section = sections[title] ?? ""
        #expect(sections[title] != nil, "no section \(title)")
        if let abstract = command["abstract"] as? String, !abstract.isEmpty {
            #expect(section.contains(abstract), "\(title): its abstract")
        }
        for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool != false {
            for spelling in argument["names"] as? [[String: Any]] ?? [] {
                guard let kind = spelling["kind"] as? String, let optionName = spelling["name"] as? String else { continue }
                let written = kind == "long" ? "--\(optionName)" : kind == "short" ? "-\(optionName)" : optionName
                #expect(section.contains(written), "\(title): \(written)")
            }
            if let abstract = argument["abstract"] as? String, !abstract.isEmpty {
                #expect(section.contains(abstract), "\(title): the help of \(argument["valueName"] ?? "")")
            }
        }
        for subcommand in command["subcommands"] as? [[String: Any]] ?? [] {
            check(subcommand, path: path + [name], sections: sections, expected: &expected)
        }
    }
}
