import ContractKit
import Foundation

/// Compares two versions of a set of contracts, as `contract diff OLD NEW` does: interactions
/// match by file name (without its folder) and interaction name, and every one added, removed
/// or changed is a ``ContractChange`` classified breaking or safe for a client.
///
/// ```swift
/// let old = ContractLoader.load(directory: "old/contracts").contracts
/// let new = ContractLoader.load(directory: "contracts").contracts
/// let changes = ContractDiff.changes(old: old, new: new)
/// changes.filter { $0.impact == .breaking }.forEach { print($0) }
/// ```
public enum ContractDiff {
    /// Every change from `old` to `new`: file by file (in name order), the old file's
    /// interactions in order (changed or removed), then the ones added.
    public static func changes(old: [Contract], new: [Contract]) -> [ContractChange] {
        let oldFiles = interactionsByFile(old)
        let newFiles = interactionsByFile(new)
        var changes: [ContractChange] = []
        for file in Set(oldFiles.keys).union(newFiles.keys).sorted() {
            let before = oldFiles[file] ?? []
            let after = newFiles[file] ?? []
            let beforeKeys = Set(before.map(\.key))
            for entry in before {
                guard let counterpart = after.first(where: { $0.key == entry.key }) else {
                    changes.append(
                        ContractChange(
                            kind: .removed, impact: .breaking, file: file, interaction: entry.interaction.name,
                            old: entry.interaction.location, new: nil,
                            path: "", reason: "removed: a client may rely on it"
                        )
                    )
                    continue
                }
                changes += InteractionDiff(file: file, old: entry.interaction, new: counterpart.interaction).changes
            }
            for entry in after where !beforeKeys.contains(entry.key) {
                changes.append(
                    ContractChange(
                        kind: .added, impact: .safe, file: file, interaction: entry.interaction.name, old: nil,
                        new: entry.interaction.location,
                        path: "", reason: "added"
                    )
                )
            }
        }
        return changes
    }

    /// An interaction with the key it matches by: its name, and which of the file's
    /// interactions of that name it is (names may repeat).
    private struct Entry {
        let key: String
        let interaction: Interaction
    }

    private static func interactionsByFile(_ contracts: [Contract]) -> [String: [Entry]] {
        var files: [String: [Entry]] = [:]
        for contract in contracts {
            let file = (contract.file as NSString).lastPathComponent
            var seen: [String: Int] = [:]
            files[file, default: []] += contract.interactions.map { interaction in
                seen[interaction.name, default: 0] += 1
                return Entry(key: "\(interaction.name)#\(seen[interaction.name] ?? 1)", interaction: interaction)
            }
        }
        return files
    }
}
