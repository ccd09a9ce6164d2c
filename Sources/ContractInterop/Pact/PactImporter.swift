import ContractKit
import Foundation

/// Turns Pact files (specification v2, v3 and v4; synchronous HTTP interactions) into YAML
/// contracts: description → `name`, provider states → `given` with params, requests and
/// responses with their headers, query and bodies, and matching rules → matchers. What has
/// no equivalent (generators, message interactions, rules such as `arrayContains`) is
/// reported per interaction, never dropped silently. Each file's consumer gets its own
/// contract file.
///
/// ```swift
/// let result = PactImporter.importFiles([("pacts/ios-authd.json", data)])
/// for file in result.files { try file.yaml.write(toFile: "contracts/" + file.name, atomically: true, encoding: .utf8) }
/// for note in result.notes { print(note) }   // "pacts/ios-authd.json:a login: generator Uuid at $.id dropped: …"
/// ```
public enum PactImporter {
    /// What an import made.
    public struct Result: Sendable {
        /// A contract file to write.
        public struct File: Sendable {
            /// `ios-app.yaml`.
            public let name: String
            /// The contract, as YAML.
            public let yaml: String
            /// The Pact file it came from.
            public let source: String
            /// The consumer and the provider the Pact file names.
            public let consumer: String, provider: String
            /// How many interactions it holds.
            public let interactions: Int
            /// The provider states its interactions use.
            public let states: [String]
        }

        /// The files, one per Pact file.
        public var files: [File] = []
        /// What could not be carried over, per interaction.
        public var notes: [PactNote] = []
        /// Files that are not Pact files, with the reason.
        public var errors: [PactNote] = []
    }

    /// Imports each file; contract file names come from the consumers (kept apart, numbered
    /// when one consumer has several files).
    public static func importFiles(_ files: [(path: String, data: Data)]) -> Result {
        var result = Result()
        var taken = Set<String>()
        for (path, data) in files {
            let pact: JSONValue
            do {
                pact = try JSONValue(parsing: data)
            } catch {
                result.errors.append(PactNote(file: path, interaction: "", message: "not JSON: \(error.localizedDescription)"))
                continue
            }
            guard case .array(let interactions)? = pact["interactions"] else {
                result.errors.append(PactNote(file: path, interaction: "", message: "not a Pact file: it has no 'interactions' list"))
                continue
            }
            let consumer = pact["consumer"]?["name"].flatMap(\.stringValue) ?? "consumer"
            let provider = pact["provider"]?["name"].flatMap(\.stringValue) ?? "provider"
            var converter = PactInteractionConverter(file: path, version: specificationVersion(pact))
            var converted: [Interaction] = []
            var names = Set<String>()
            for (index, interaction) in interactions.enumerated() {
                guard var made = converter.interaction(interaction, index: index) else { continue }
                if !names.insert(made.name).inserted {
                    let unique = Contract.freeName(made.name, separator: " ") { names.contains($0) }
                    names.insert(unique)
                    made = made.with(name: unique)
                }
                converted.append(made)
            }
            result.notes += converter.notes
            let base = Contract.fileBase(consumer)
            let name = Contract.freeName(base, separator: "-") { taken.contains($0) }
            taken.insert(name)
            let header = [
                "Imported from \((path as NSString).lastPathComponent) (Pact specification \(converter.version)):",
                "consumer \(consumer), provider \(provider).",
            ]
            do {
                let yaml = try ContractYAML.contract(name: "\(consumer) → \(provider)", interactions: converted, comments: header)
                var states: [String] = []
                for state in converted.flatMap(\.given).map(\.state) where !states.contains(state) { states.append(state) }
                result.files.append(
                    Result.File(
                        name: "\(name).yaml", yaml: yaml, source: path, consumer: consumer, provider: provider,
                        interactions: converted.count, states: states)
                )
            } catch {
                result.errors.append(PactNote(file: path, interaction: "", message: "cannot write YAML: \(error)"))
            }
        }
        return result
    }

    /// `2.0.0`, `3.0.0`, `4.0`: from the metadata, v2 when none says.
    static func specificationVersion(_ pact: JSONValue) -> String {
        let metadata = pact["metadata"]
        let candidates = [
            metadata?["pactSpecification"]?["version"], metadata?["pact-specification"]?["version"], metadata?["pactSpecificationVersion"],
        ]
        for case .string(let version)? in candidates { return version }
        return "2.0.0"
    }
}

extension JSONValue {
    /// The string, when this is one.
    var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }
}

extension PactImporter {
    /// A Java date format (as Pact's `date`, `time` and `timestamp` rules carry) as a
    /// regular expression; nil for letters it does not know.
    ///
    /// ```swift
    /// PactImporter.dateRegex("yyyy-MM-dd")   // #"\d{4}-\d{2}-\d{2}"#
    /// ```
    public static func dateRegex(_ format: String) -> String? {
        PactDateFormat.regex(format)
    }
}
