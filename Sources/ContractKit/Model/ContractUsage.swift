import Foundation

/// Which interactions of a provider's contracts one client's tests exercised: what
/// `ContractStub` records (`stub.usage`, `CONTRACT_USAGE_DIR`) and `contract can-i-deploy`
/// reads. The client's repository commits it as a small JSON file, one interaction a line,
/// sorted, so a change shows in review:
///
/// ```json
/// {
///   "client": "LoginClient",
///   "format": 1,
///   "interactions": [
///     {"file":"login.yaml","interaction":"valid credentials return a bearer token pair","method":"POST","path":"/login"}
///   ]
/// }
/// ```
///
/// ```swift
/// let usage = try ContractUsage(parsing: Data(contentsOf: URL(fileURLWithPath: "contract-usage/LoginClient.json")))
/// usage.interactions.first?.file   // "login.yaml"
/// ```
public struct ContractUsage: Sendable, Equatable {
    /// One interaction a client used. It matches an interaction of the contracts by file name
    /// (without its folder) and interaction name, as `ContractDiff` does; method and path
    /// (as the contract writes it, placeholders included) say what it is to a reader.
    public struct Interaction: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The contract file's name, without its folder: `login.yaml`.
        public let file: String
        /// The interaction's name.
        public let interaction: String
        /// The request's method.
        public let method: String
        /// The request's path as the contract writes it: `/sessions/{id}`.
        public let path: String

        /// Creates an entry.
        public init(file: String, interaction: String, method: String, path: String) {
            self.file = (file as NSString).lastPathComponent
            self.interaction = interaction
            self.method = method
            self.path = path
        }

        /// By file, interaction name, method, path.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.file, lhs.interaction, lhs.method, lhs.path) < (rhs.file, rhs.interaction, rhs.method, rhs.path)
        }

        /// `login.yaml: valid credentials (POST /login)`.
        public var description: String { "\(file): \(interaction) (\(method) \(path))" }

        var json: JSONValue {
            .object(["file": .string(file), "interaction": .string(interaction), "method": .string(method), "path": .string(path)])
        }
    }

    /// A usage file that cannot be read.
    public struct FormatError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// The version of the file format this type writes and reads.
    public static let format = 1

    /// The client's name (the file is usually named after it: `LoginClient.json`).
    public let client: String
    /// The interactions, sorted, without repeats.
    public let interactions: [Interaction]

    /// A usage of `interactions` (sorted and deduplicated here) by `client`.
    public init(client: String, interactions: some Sequence<Interaction>) {
        self.client = client
        self.interactions = Set(interactions).sorted()
    }

    /// Reads a usage file.
    /// - Throws: ``FormatError`` when it is not JSON of this shape.
    public init(parsing data: Data) throws {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: data)
        } catch {
            throw FormatError(description: "not JSON: \(error.localizedDescription)")
        }
        guard case .string(let client)? = document["client"] else { throw FormatError(description: "no \"client\" string") }
        if let format = document["format"], format != .integer(Self.format) {
            throw FormatError(description: "format \(format) is not \(Self.format)")
        }
        guard case .array(let entries)? = document["interactions"] else { throw FormatError(description: "no \"interactions\" list") }
        var interactions: [Interaction] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let file)? = entry["file"], case .string(let name)? = entry["interaction"] else {
                throw FormatError(description: "interactions[\(index)] needs \"file\" and \"interaction\" strings")
            }
            var method = ""
            var path = ""
            if case .string(let value)? = entry["method"] { method = value }
            if case .string(let value)? = entry["path"] { path = value }
            interactions.append(Interaction(file: file, interaction: name, method: method, path: path))
        }
        self.init(client: client, interactions: interactions)
    }

    /// This usage and `other`'s interactions together, under this client's name.
    public func merging(_ other: ContractUsage) -> ContractUsage {
        ContractUsage(client: client, interactions: interactions + other.interactions)
    }

    /// The file's text: keys sorted, one interaction a line, ending in a newline.
    public var text: String {
        var lines = ["{", "  \"client\": \(JSONValue.string(client)),", "  \"format\": \(Self.format),"]
        if interactions.isEmpty {
            lines.append("  \"interactions\": []")
        } else {
            lines.append("  \"interactions\": [")
            for (index, entry) in interactions.enumerated() {
                lines.append("    \(entry.json)" + (index == interactions.count - 1 ? "" : ","))
            }
            lines.append("  ]")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes ``text`` to `url` atomically.
    public func write(to url: URL) throws {
        try Data(text.utf8).write(to: url, options: .atomic)
    }
}
