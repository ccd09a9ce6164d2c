import ContractKit
import Foundation
import Yams

/// The interactions of an exported document, carried as written under the vendor extension
/// `x-contract-interactions`, so that `contract import openapi` gives back the contracts
/// they came from.
///
/// A document's schemas describe every request of an operation at once and every response
/// of a status joined, so they cannot say which request a replay sends, in what order,
/// after which provider states, what it saves for the next one, or which of the joined
/// responses it gets. Each operation therefore lists its interactions, each entry
/// `{file, contract, position, interaction}` with the interaction in the contracts' own
/// format (as `contract.yaml`'s neighbours write it, as JSON); interactions of no operation
/// (a path and method answered only 404 or 405) are listed on the document itself.
///
/// ```swift
/// let entry = CarriedInteractions.entry(interaction, of: contract, position: 3)
/// // {"file": "login.yaml", "contract": "Login", "position": 3, "interaction": {"name": …, "request": …}}
/// ```
public enum CarriedInteractions {
    /// The vendor extension's name.
    public static let key = "x-contract-interactions"

    /// One carried interaction.
    public static func entry(_ interaction: Interaction, of contract: Contract, position: Int) -> JSONValue {
        [
            "file": .string((contract.file as NSString).lastPathComponent),
            "contract": .string(contract.name),
            "position": .integer(position),
            "interaction": json(ContractYAML.interaction(interaction)),
        ]
    }

    /// A YAML node the contract writer made, as JSON: plain scalars that YAML reads as
    /// numbers, booleans or null become those, everything else a string.
    static func json(_ node: Node) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            guard scalar.style == .plain else { return .string(scalar.string) }
            let text = scalar.string
            switch text {
            case "null", "~": return .null
            case "true": return .bool(true)
            case "false": return .bool(false)
            default:
                if let integer = Int(text) { return .integer(integer) }
                if let number = Double(text) { return .number(number) }
                return .string(text)
            }
        case .sequence(let sequence):
            return .array(sequence.map(json))
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping { object[key.string ?? ""] = json(value) }
            return .object(object)
        case .alias:
            return .null
        }
    }

    /// A contract file read back from carried entries.
    public struct File: Sendable {
        /// `login.yaml`.
        public let name: String
        /// The contract, its interactions in their original order.
        public let contract: Contract
    }

    /// The contracts `entries` carry, one per original file (in file-name order), each
    /// interaction read with the contract loader; problems as `file:line:column: message`
    /// (the line within that file's carried entries).
    public static func contracts(from entries: [JSONValue]) -> (files: [File], problems: [String]) {
        var byFile: [String: (contract: String, items: [(position: Int, interaction: JSONValue)])] = [:]
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let file)? = entry["file"], case .integer(let position)? = entry["position"],
                let interaction = entry["interaction"]
            else {
                problems.append("\(key)[\(index)]: an entry needs file, position and interaction")
                continue
            }
            let contract = entry["contract"].flatMap(\.stringValue) ?? file
            byFile[file, default: (contract, [])].items.append((position, interaction))
        }
        var files: [File] = []
        for name in byFile.keys.sorted() {
            guard let group = byFile[name] else { continue }
            let ordered = group.items.sorted { $0.position < $1.position }.map(\.interaction)
            let document: JSONValue = ["name": .string(group.contract), "interactions": .array(ordered)]
            // JSON is YAML: the loader reads it and reports what does not hold.
            let (contract, diagnostics) = ContractLoader.parse(yaml: document.description, file: name)
            problems += diagnostics.map(\.description)
            if let contract { files.append(File(name: name, contract: contract)) }
        }
        return (files, problems)
    }
}
