import ContractKit

/// `contract diff`'s output: one line per change and a summary, or a JSON document.
///
/// ```swift
/// let report = ContractDiffReport(changes: ContractDiff.changes(old: old, new: new))
/// print(report.text)
/// // breaking  contracts/login.yaml:12 → contracts/login.yaml:14  valid credentials: response status: 200 → 201
/// // 1 change: 1 breaking, 0 safe (0 added, 0 removed, 1 changed)
/// report.hasBreakingChanges   // true
/// ```
public struct ContractDiffReport: Sendable {
    /// The changes, in order.
    public let changes: [ContractChange]

    /// Creates a report.
    public init(changes: [ContractChange]) {
        self.changes = changes
    }

    /// Whether any change breaks a client (`contract diff` then exits 1).
    public var hasBreakingChanges: Bool { changes.contains { $0.impact == .breaking } }

    /// `N changes: B breaking, S safe (A added, R removed, C changed)`, or `no changes`.
    public var summary: String {
        guard !changes.isEmpty else { return "no changes" }
        func count(_ kind: ContractChange.Kind) -> Int { changes.filter { $0.kind == kind }.count }
        let breaking = changes.filter { $0.impact == .breaking }.count
        return "\(changes.count) change\(changes.count == 1 ? "" : "s"): \(breaking) breaking, \(changes.count - breaking) safe "
            + "(\(count(.added)) added, \(count(.removed)) removed, \(count(.changed)) changed)"
    }

    /// Every change on its own line, then the summary; ends with a newline.
    public var text: String {
        (changes.map(\.description) + [summary]).joined(separator: "\n") + "\n"
    }

    /// `{"breaking": Bool, "summary": {...}, "changes": [{kind, classification, interaction, file, old, new, path, reason}]}`.
    public var json: JSONValue {
        func location(_ location: SourceLocation?) -> JSONValue {
            guard let location else { return .null }
            return .object(["file": .string(location.file), "line": .integer(location.line)])
        }
        func count(_ predicate: (ContractChange) -> Bool) -> JSONValue { .integer(changes.filter(predicate).count) }
        let entries: [JSONValue] = changes.map { change in
            .object([
                "kind": .string(change.kind.rawValue), "classification": .string(change.impact.rawValue), "file": .string(change.file),
                "interaction": .string(change.interaction), "old": location(change.old), "new": location(change.new),
                "path": .string(change.path), "reason": .string(change.reason),
            ])
        }
        return .object([
            "breaking": .bool(hasBreakingChanges),
            "summary": .object([
                "changes": .integer(changes.count), "breaking": count { $0.impact == .breaking }, "safe": count { $0.impact == .safe },
                "added": count { $0.kind == .added }, "removed": count { $0.kind == .removed }, "changed": count { $0.kind == .changed },
            ]),
            "changes": .array(entries),
        ])
    }
}
