import ContractKit

/// Something an interaction lost or changed on its way into or out of Pact.
///
/// ```swift
/// let note = PactNote(file: "pacts/ios-authd.json", interaction: "a login", message: "generator Uuid at $.id dropped")
/// print(note)   // pacts/ios-authd.json:a login: generator Uuid at $.id dropped
/// ```
public struct PactNote: Sendable, CustomStringConvertible, Equatable {
    /// The Pact file (import) or the contract file (export).
    public let file: String
    /// The interaction's description (empty for the file itself).
    public let interaction: String
    /// What happened.
    public let message: String

    /// Creates a note.
    public init(file: String, interaction: String, message: String) {
        self.file = file
        self.interaction = interaction
        self.message = message
    }

    /// `file:interaction: message`.
    public var description: String { interaction.isEmpty ? "\(file): \(message)" : "\(file):\(interaction): \(message)" }
}
