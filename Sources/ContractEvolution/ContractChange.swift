import ContractKit

/// One difference `contract diff` finds between two versions of the contracts: an
/// interaction added, removed, or changed in one place, and whether that breaks a client.
///
/// ```swift
/// let change = ContractChange(
///     kind: .changed, impact: .breaking, file: "login.yaml", interaction: "valid credentials",
///     old: SourceLocation(file: "contracts/login.yaml", line: 12), new: SourceLocation(file: "contracts/login.yaml", line: 14),
///     path: "response $.expires_in", reason: "integer → string"
/// )
/// print(change)   // "breaking  contracts/login.yaml:12 → contracts/login.yaml:14  valid credentials: response $.expires_in: integer → string"
/// ```
public struct ContractChange: Sendable, Equatable, CustomStringConvertible {
    /// What happened to the interaction.
    public enum Kind: String, Sendable, Equatable {
        case added, removed, changed
    }

    /// What it means for a client.
    public enum Impact: String, Sendable, Equatable {
        case breaking, safe
    }

    /// Added, removed or changed.
    public let kind: Kind
    /// Breaking or safe.
    public let impact: Impact
    /// The contract file's name (without its folder): interactions match by file and name.
    public let file: String
    /// The interaction's name.
    public let interaction: String
    /// Where the interaction is written in the old contracts (nil when added).
    public var old: SourceLocation?
    /// Where it is written in the new contracts (nil when removed).
    public var new: SourceLocation?
    /// What changed inside it: `response status`, `request $.password`, `response header cache-control`…; empty for added and removed.
    public let path: String
    /// Why, in a few words: `integer → string`, `removed: a client may rely on it`.
    public let reason: String

    /// Creates a change.
    public init(
        kind: Kind, impact: Impact, file: String, interaction: String, old: SourceLocation?, new: SourceLocation?, path: String,
        reason: String
    ) {
        self.kind = kind
        self.impact = impact
        self.file = file
        self.interaction = interaction
        self.old = old
        self.new = new
        self.path = path
        self.reason = reason
    }

    /// `breaking  old:line → new:line  interaction: path: reason`, `—` for a side that is missing.
    public var description: String {
        let sides = "\(old?.description ?? "—") → \(new?.description ?? "—")"
        let what = path.isEmpty ? reason : "\(path): \(reason)"
        return "\(impact.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  \(sides)  \(interaction): \(what)"
    }
}
