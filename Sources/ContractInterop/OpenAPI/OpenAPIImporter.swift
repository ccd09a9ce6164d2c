#if canImport(OpenAPIKit)
    import ContractKit
    import Foundation
    import OpenAPIKit
    import Yams

    /// Turns an OpenAPI document (3.0, 3.1 or 3.2; JSON or YAML, read with OpenAPIKit) into
    /// YAML contracts: one interaction per operation and declared status, one contract file per
    /// tag (an operation's first), or per first path segment for an untagged operation, and a
    /// `contract.yaml` skeleton. Requests and responses are matchers derived from the schemas
    /// (``SchemaMatcherBuilder``) with the document's examples; what a contract cannot carry is
    /// a note, never dropped silently.
    ///
    /// A document that `contract export openapi` wrote carries its interactions as written
    /// (``CarriedInteractions``): those operations give back the contracts they came from, in
    /// their files and order, which `contract verify` replays against the provider again.
    ///
    /// ```swift
    /// let result = try OpenAPIImporter.importDocument(data, file: "petstore.yaml")
    /// for file in result.files { try file.yaml.write(toFile: "contracts/" + file.name, atomically: true, encoding: .utf8) }
    /// try result.configuration.write(toFile: "contracts/contract.yaml", atomically: true, encoding: .utf8)
    /// for note in result.notes { print(note) }   // petstore.yaml: GET /pets 200 $[*].tag: optional property left out …
    /// ```
    public enum OpenAPIImporter {
        /// What an import made.
        public struct Result: Sendable {
            /// A contract file to write.
            public struct File: Sendable {
                /// `pets.yaml`.
                public let name: String
                /// The contract, as YAML.
                public let yaml: String
                /// The contract it holds.
                public let contract: Contract
                /// Whether it was carried as written (an export of contracts), rather than derived from schemas.
                public let carried: Bool
            }

            /// The contract files, in name order.
            public var files: [File] = []
            /// A `contract.yaml` skeleton: the provider command to fill in, the base URL, the ready
            /// path and a placeholder per provider state the interactions use.
            public var configuration = ""
            /// What could not be carried over, or only approximately.
            public var notes: [OpenAPIImportNote] = []
            /// The `openapi` version the document declared.
            public var version = ""

            /// The provider states the interactions use, in order of first use.
            public var states: [String] {
                var names: [String] = []
                for state in files.flatMap({ $0.contract.interactions.flatMap(\.given) }).map(\.state) where !names.contains(state) {
                    names.append(state)
                }
                return names
            }
        }

        /// Imports one document.
        /// - Parameters:
        ///   - file: its name, for notes, errors and the skeleton's comment.
        ///   - carried: read the interactions an export carries (`x-contract-interactions`);
        ///     false derives every operation's from its schemas, as for any document.
        /// - Throws: ``OpenAPIImportError``: not JSON or YAML, not OpenAPI 3, or not a valid
        ///   document, with where.
        public static func importDocument(_ data: Data, file: String, carried: Bool = true) throws(OpenAPIImportError) -> Result {
            if carried, let result = try carriedOnly(data, file: file) { return result }
            let read = try OpenAPIDocumentReader.read(data, file: file)
            let document = read.document
            let endpoints: [ResolvedEndpoint]
            do {
                endpoints = try document.locallyDereferenced().resolved().endpoints
            } catch {
                let described = OpenAPI.Error(from: error)
                throw OpenAPIImportError(
                    file: file, location: described.codingPathString,
                    message: "cannot resolve the document's references: \(described.localizedDescription)")
            }
            var result = Result()
            result.version = read.version

            var carriedEntries: [JSONValue] = []
            var derived: [ResolvedEndpoint] = []
            if carried, case .array(let entries)? = SchemaMatcherBuilder.json(document.vendorExtensions[CarriedInteractions.key]) {
                carriedEntries += entries
            }
            for endpoint in endpoints {
                if carried,
                    case .array(let entries)? = SchemaMatcherBuilder.json(endpoint.endpointVendorExtensions[CarriedInteractions.key])
                {
                    carriedEntries += entries
                } else {
                    derived.append(endpoint)
                }
            }

            var taken: Set<String> = [ContractLoader.providerFileName]
            result.files = try carriedFiles(carriedEntries, file: file, version: read.version, taken: &taken)

            let server = document.servers.first?.urlTemplate.rawValue
            let basePath = Self.basePath(of: server)
            var importer = OpenAPIEndpointImporter(file: file, basePath: basePath ?? "")
            var serverNotes: [OpenAPIImportNote] = []
            if let server, basePath == nil {
                serverNotes.append(
                    OpenAPIImportNote(
                        file: file, location: "servers[0]",
                        message: "the path of \(server) has variables: the operations' paths are used without it"))
            } else if let basePath, !basePath.isEmpty, !derived.isEmpty {
                serverNotes.append(
                    OpenAPIImportNote(
                        file: file, location: "servers[0]", message: "the operations' paths start with the server's path \(basePath)"))
            }
            var groups: [(name: String, interactions: [Interaction])] = []
            for endpoint in derived {
                let group = endpoint.tags.first ?? endpoint.path.components.first.map { "/" + $0 } ?? "/"
                let made = importer.interactions(endpoint)
                if let index = groups.firstIndex(where: { $0.name == group }) {
                    groups[index].interactions += made
                } else {
                    groups.append((group, made))
                }
            }
            for (group, interactions) in groups where !interactions.isEmpty {
                var names = Set<String>()
                let unique = interactions.map { interaction -> Interaction in
                    let name = Contract.freeName(interaction.name, separator: " ") { names.contains($0) }
                    names.insert(name)
                    return interaction.with(name: name)
                }
                let base = Contract.fileBase(group)
                let name = Contract.freeName(base, separator: "-") { taken.contains($0 + ".yaml") } + ".yaml"
                taken.insert(name)
                let title = document.info.title
                let header = [
                    "Imported from \((file as NSString).lastPathComponent) (\(title), OpenAPI \(read.version)) by contract import openapi."
                ]
                let contract = Contract(name: group.hasPrefix("/") ? "\(title) \(group)" : group, file: name, interactions: unique)
                result.files.append(try written(contract, name: name, header: header, carried: false, file: file))
            }
            result.files.sort { $0.name < $1.name }
            result.notes = serverNotes + importer.notes + documentNotes(document, file: file)
            if result.files.isEmpty {
                result.notes.append(
                    OpenAPIImportNote(
                        file: file, location: "paths", message: "no operation with a response of one status: no contract file written"))
            }
            result.configuration = configuration(
                title: document.info.title, server: document.servers.first?.urlTemplate.absoluteString,
                ready: document.vendorExtensions["x-contract-ready"].flatMap { SchemaMatcherBuilder.json($0)?.stringValue }, file: file,
                states: result.states
            )
            return result
        }

        /// A JSON document each of whose operations carries its interactions (an export of
        /// contracts): read as JSON, without decoding its schemas, which the carried interactions
        /// make unneeded (OpenAPIKit takes seconds over authd's document in a debug build). Nil
        /// for any other document.
        private static func carriedOnly(_ data: Data, file: String) throws(OpenAPIImportError) -> Result? {
            guard data.first == UInt8(ascii: "{"), let document = try? JSONValue(parsing: data),
                case .string(let version)? = document["openapi"],
                case .object(let paths)? = document["paths"]
            else { return nil }
            var entries: [JSONValue] = []
            if case .array(let unlisted)? = document[CarriedInteractions.key] { entries += unlisted }
            let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
            for (_, item) in paths {
                guard case .object(let operations) = item else { return nil }
                for (method, operation) in operations where methods.contains(method) {
                    guard case .array(let carried)? = operation[CarriedInteractions.key] else { return nil }
                    entries += carried
                }
            }
            guard !entries.isEmpty else { return nil }
            var result = Result()
            result.version = version
            var taken: Set<String> = [ContractLoader.providerFileName]
            result.files = try carriedFiles(entries, file: file, version: version, taken: &taken)
            let title = document["info"]?["title"]?.stringValue ?? "the provider"
            let server: String? = if case .array(let servers)? = document["servers"] { servers.first?["url"]?.stringValue } else { nil }
            result.configuration = configuration(
                title: title, server: server, ready: document["x-contract-ready"]?.stringValue, file: file, states: result.states)
            return result
        }

        /// The contract files carried entries give back, under their original names.
        private static func carriedFiles(_ entries: [JSONValue], file: String, version: String, taken: inout Set<String>)
            throws(OpenAPIImportError) -> [Result.File]
        {
            guard !entries.isEmpty else { return [] }
            let (files, problems) = CarriedInteractions.contracts(from: entries)
            guard problems.isEmpty else {
                throw OpenAPIImportError(
                    file: file, location: CarriedInteractions.key,
                    message: "carried interactions that do not load: " + problems.joined(separator: "; "))
            }
            var written: [Result.File] = []
            for carriedFile in files {
                let name =
                    Contract.freeName(String(carriedFile.name.dropLast(5)), separator: "-") { taken.contains($0 + ".yaml") } + ".yaml"
                taken.insert(name)
                let header = [
                    "Imported from \((file as NSString).lastPathComponent) (OpenAPI \(version)): the interactions \(carriedFile.name) carried."
                ]
                written.append(try self.written(carriedFile.contract, name: name, header: header, carried: true, file: file))
            }
            return written
        }

        private static func written(_ contract: Contract, name: String, header: [String], carried: Bool, file: String)
            throws(OpenAPIImportError) -> Result.File
        {
            do {
                let yaml = try ContractYAML.contract(name: contract.name, interactions: contract.interactions, comments: header)
                return Result.File(name: name, yaml: yaml, contract: contract, carried: carried)
            } catch {
                throw OpenAPIImportError(file: file, location: name, message: "cannot write YAML: \(error)")
            }
        }

        /// The path of a server URL (`https://api.example.com/v1/` → `/v1`), `""` for none or `/`
        /// (a relative URL such as `/v1` is a path too); nil when the path holds `{variables}`.
        ///
        /// ```swift
        /// OpenAPIImporter.basePath(of: "https://api.example.com/v1/")   // "/v1"
        /// ```
        public static func basePath(of server: String?) -> String? {
            guard let server else { return "" }
            var rest = Substring(server)
            if let scheme = rest.range(of: "://") {
                rest = rest[scheme.upperBound...]
                guard let slash = rest.firstIndex(of: "/") else { return "" }
                rest = rest[slash...]
            }
            let path = String(rest.split(separator: "?").first ?? "")
            if path.contains("{") { return nil }
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            return trimmed.hasPrefix("/") || trimmed.isEmpty ? trimmed : ""
        }

        /// What the document holds beyond operations that no contract carries.
        private static func documentNotes(_ document: OpenAPI.Document, file: String) -> [OpenAPIImportNote] {
            var notes: [OpenAPIImportNote] = []
            if !document.webhooks.isEmpty && document.vendorExtensions[CarriedInteractions.key] == nil {
                notes.append(
                    OpenAPIImportNote(
                        file: file, location: "webhooks",
                        message:
                            "\(document.webhooks.count) webhooks are not carried: write them as `delivers:` of the interactions that send them"
                    )
                )
            }
            for (path, item) in document.paths {
                guard case .b(let pathItem) = item else { continue }
                for endpoint in pathItem.endpoints where !endpoint.operation.callbacks.isEmpty {
                    notes.append(
                        OpenAPIImportNote(
                            file: file, location: "\(endpoint.method.rawValue.uppercased()) \(path.rawValue)",
                            message: "callbacks (\(endpoint.operation.callbacks.keys.joined(separator: ", "))) are not carried"
                        )
                    )
                }
            }
            return notes
        }

        /// The `contract.yaml` skeleton.
        private static func configuration(title: String, server: String?, ready readyPath: String?, file: String, states: [String])
            -> String
        {
            let ready = readyPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
            let provider = ContractYAML.mapping([
                (
                    "command",
                    ContractYAML.text(
                        "echo 'contract.yaml: say how to start \(title) on port {{port}} (provider.command), or run contract verify with --base-url' >&2; exit 1"
                    )
                ),
                ("ready", ContractYAML.text(ready)),
                ("base_url", ContractYAML.text("http://127.0.0.1:{{port}}")),
                ("startup_timeout", ContractYAML.value(.integer(60))),
            ])
            var pairs: [(String, Node)] = [("provider", provider)]
            if !states.isEmpty {
                pairs.append(
                    (
                        "states",
                        ContractYAML.mapping(
                            states.map { state in
                                (
                                    state,
                                    ContractYAML.mapping([
                                        ("command", ContractYAML.text("echo 'contract.yaml: set up the state \(state)' >&2; exit 1"))
                                    ])
                                )
                            })
                    )
                )
            }
            var comments = [
                "# Written by contract import openapi from \((file as NSString).lastPathComponent) (\(title)).",
                "# Fill in how to start the provider (and set up each state), or run",
                "#   contract verify DIR --base-url URL",
                "# against one you started\(server.map { ", such as \($0)" } ?? "").",
            ]
            if states.isEmpty { comments.append("# The document names no provider states (x-contract-given).") }
            let yaml = (try? Yams.serialize(node: ContractYAML.mapping(pairs), width: -1, allowUnicode: true)) ?? ""
            return comments.joined(separator: "\n") + "\n" + yaml
        }
    }
#endif
