/// Something `contract import openapi` could not carry over, or carried approximately.
///
/// ```swift
/// let note = OpenAPIImportNote(file: "petstore.yaml", location: "GET /pets/{petId} 200 $.tag", message: "optional property left out")
/// print(note)   // petstore.yaml: GET /pets/{petId} 200 $.tag: optional property left out
/// ```
public struct OpenAPIImportNote: Sendable, Equatable, CustomStringConvertible {
    /// The document.
    public let file: String
    /// Where in it: an operation (`GET /pets/{petId}`), a response (`… 200`), a JSON path
    /// inside a body, or a part of the document (`components.securitySchemes.oauth`).
    public let location: String
    /// What happened.
    public let message: String

    /// Creates a note.
    public init(file: String, location: String, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    /// `file: location: message`.
    public var description: String { location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)" }
}
