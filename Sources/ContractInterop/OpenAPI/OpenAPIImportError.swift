/// A document `contract import openapi` cannot read: not JSON or YAML, not OpenAPI 3.0 or
/// 3.1, or not a valid document. Says where, never crashes.
///
/// ```swift
/// print(error)   // broken.yaml: paths./pets.get: Expected to find `responses` key …
/// ```
public struct OpenAPIImportError: Error, Sendable, CustomStringConvertible {
    /// The document.
    public let file: String
    /// Where in it (a coding path such as `paths./pets.get.responses`, or `line 3, column 7`);
    /// empty when the whole document is at fault.
    public let location: String
    /// What is wrong.
    public let message: String

    /// Creates an error.
    public init(file: String, location: String, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    /// `file: location: message`.
    public var description: String { location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)" }
}
