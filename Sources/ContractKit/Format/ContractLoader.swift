import Foundation
import Yams

/// Loads contract files and `contract.yaml`, reporting every problem as
/// `file:line:column: message` rather than stopping at the first or crashing.
///
/// ```swift
/// let suite = ContractLoader.load(directory: "contracts")
/// for diagnostic in suite.diagnostics { print(diagnostic) }
/// ```
public enum ContractLoader {
    /// The provider configuration's file name inside a contracts directory.
    public static let providerFileName = "contract.yaml"

    /// Loads every `*.yaml` / `*.yml` file of `directory` (sorted by name) and its `contract.yaml`.
    public static func load(directory: String) -> ContractSuite {
        var diagnostics: [ContractDiagnostic] = []
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            return ContractSuite(
                directory: directory, provider: nil, contracts: [],
                diagnostics: [ContractDiagnostic(file: directory, line: 0, column: 0, message: "cannot read the contracts directory")]
            )
        }
        var provider: ProviderConfiguration?
        var contracts: [Contract] = []
        for name in names where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let text = read(path, into: &diagnostics) else { continue }
            if name == providerFileName {
                let (configuration, problems) = parseProvider(yaml: text, file: path)
                provider = configuration
                diagnostics += problems
            } else {
                let (contract, problems) = parse(yaml: text, file: path)
                if let contract { contracts.append(contract) }
                diagnostics += problems
            }
        }
        if contracts.isEmpty && diagnostics.isEmpty {
            diagnostics.append(ContractDiagnostic(file: directory, line: 0, column: 0, message: "no contract files (*.yaml) found"))
        }
        if let states = provider?.states {
            for contract in contracts {
                for interaction in contract.interactions {
                    for use in interaction.given where states[use.state] == nil {
                        diagnostics.append(
                            ContractDiagnostic(
                                file: contract.file, line: interaction.location.line, column: 0,
                                message:
                                    "unknown provider state '\(use.state)' (\(providerFileName) defines: \(states.keys.sorted().joined(separator: ", ")))"
                            )
                        )
                    }
                }
            }
        }
        // Time that passes must be able to pass on the provider too.
        if let provider, provider.clock == nil {
            for contract in contracts {
                for interaction in contract.interactions where interaction.after != nil {
                    diagnostics.append(
                        ContractDiagnostic(
                            file: contract.file, line: interaction.location.line, column: 0,
                            message:
                                "'\(interaction.name)' happens after: a time step, and \(providerFileName) declares no clock: hook to move the provider's clock"
                        )
                    )
                }
            }
        }
        return ContractSuite(directory: directory, provider: provider, contracts: contracts, diagnostics: diagnostics.sorted())
    }

    /// Parses one contract file's text.
    public static func parse(yaml: String, file: String) -> (Contract?, [ContractDiagnostic]) {
        var reader = YAMLReader(file: file)
        guard let root = compose(yaml, reader: &reader) else { return (nil, reader.diagnostics) }
        guard let pairs = reader.mapping(root, "a contract file", allowed: ["name", "interactions"], required: ["name", "interactions"])
        else {
            return (nil, reader.diagnostics)
        }
        var name: String?
        var interactions: [Interaction] = []
        var defined = Set<String>()
        for (key, node) in pairs {
            switch key {
            case "name":
                name = reader.string(node, "name")
            default:
                guard case .sequence(let sequence) = node else {
                    reader.error(node, "interactions must be a list, not \(reader.describe(node))")
                    continue
                }
                if sequence.isEmpty { reader.error(node, "interactions must not be empty") }
                for element in sequence {
                    if let interaction = reader.interaction(element, defined: &defined) {
                        interactions.append(interaction)
                    }
                }
            }
        }
        guard let name, reader.diagnostics.isEmpty else { return (nil, reader.diagnostics) }
        return (Contract(name: name, file: file, interactions: interactions), [])
    }

    /// Parses `contract.yaml`'s text.
    public static func parseProvider(yaml: String, file: String) -> (ProviderConfiguration?, [ContractDiagnostic]) {
        var reader = YAMLReader(file: file)
        guard let root = compose(yaml, reader: &reader),
            let pairs = reader.mapping(root, providerFileName, allowed: ["provider", "states", "clock", "openapi"])
        else { return (nil, reader.diagnostics) }
        var command: Template?
        var ready = "/"
        var baseURL: Template?
        var timeout = 120
        var states: [String: StateSetup] = [:]
        var swiftProducts: [String] = []
        var swiftPackage: String?
        var clock: ClockHook?
        var alsoAnswers: [ProviderConfiguration.AlsoAnswered] = []
        for (key, node) in pairs {
            if key == "openapi" {
                alsoAnswers = readAlsoAnswers(node, reader: &reader)
            } else if key == "clock" {
                guard let fields = reader.mapping(node, "clock", allowed: ["command", "url"]) else { continue }
                switch (fields.first { $0.key == "command" }?.node, fields.first { $0.key == "url" }?.node) {
                case (let commandNode?, nil): clock = reader.string(commandNode, "command").map { .command(Template($0)) }
                case (nil, let urlNode?): clock = reader.string(urlNode, "url").map { .url(Template($0)) }
                case (.some, .some): reader.error(node, "clock needs either command or url, not both")
                case (nil, nil): reader.error(node, "clock needs a command or a url")
                }
            } else if key == "provider" {
                let fields = ["command", "ready", "base_url", "startup_timeout", "swift_products", "swift_package"]
                for (field, value) in reader.mapping(node, "provider", allowed: fields) ?? [] {
                    switch field {
                    case "swift_products":
                        guard case .sequence(let sequence) = value else {
                            reader.error(value, "swift_products must be a list of product names, not \(reader.describe(value))")
                            continue
                        }
                        for element in sequence {
                            guard let name = reader.string(element, "a swift_products entry") else { continue }
                            if name.isEmpty || name.contains(where: { $0.isWhitespace || $0 == "/" }) {
                                reader.error(element, "'\(name)' is not a SwiftPM product name")
                            } else {
                                swiftProducts.append(name)
                            }
                        }
                    case "swift_package": swiftPackage = reader.string(value, "swift_package")
                    case "command": command = reader.string(value, "command").map(Template.init)
                    case "ready":
                        if let path = reader.string(value, "ready") {
                            if path.hasPrefix("/") { ready = path } else { reader.error(value, "ready must be a path starting with '/'") }
                        }
                    case "base_url": baseURL = reader.string(value, "base_url").map(Template.init)
                    default:
                        if let seconds = reader.integer(value, "startup_timeout") {
                            if seconds > 0 { timeout = seconds } else { reader.error(value, "startup_timeout must be positive") }
                        }
                    }
                }
            } else {
                for (state, value) in reader.mapping(node, "states") ?? [] {
                    guard let fields = reader.mapping(value, "state '\(state)'", allowed: ["command", "stdin", "url"]) else { continue }
                    var values: [String: Node] = [:]
                    for (field, fieldValue) in fields { values[field] = fieldValue }
                    switch (values["command"], values["url"]) {
                    case (let commandNode?, nil):
                        if let text = reader.string(commandNode, "command") {
                            let stdin = values["stdin"].flatMap { reader.string($0, "stdin") }.map(Template.init)
                            states[state] = .command(Template(text), stdin: stdin)
                        }
                    case (nil, let urlNode?):
                        if values["stdin"] != nil { reader.error(values["stdin"], "stdin goes with command, not url") }
                        if let text = reader.string(urlNode, "url") { states[state] = .url(Template(text)) }
                    case (.some, .some):
                        reader.error(value, "state '\(state)' needs either command or url, not both")
                    case (nil, nil):
                        reader.error(value, "state '\(state)' needs a command or a url")
                    }
                }
            }
        }
        guard reader.diagnostics.isEmpty else { return (nil, reader.diagnostics) }
        let configuration = ProviderConfiguration(
            command: command, ready: ready, baseURL: baseURL, startupTimeout: timeout, states: states,
            swiftProducts: swiftProducts, swiftPackage: swiftPackage, clock: clock, alsoAnswers: alsoAnswers
        )
        return (configuration, [])
    }

    /// `openapi: { also_answers: { 429: ["POST /users", …] } }`: each status from 100 to 599,
    /// each route a method and a path starting with `/`.
    private static func readAlsoAnswers(_ node: Node, reader: inout YAMLReader) -> [ProviderConfiguration.AlsoAnswered] {
        var result: [ProviderConfiguration.AlsoAnswered] = []
        for (_, answers) in reader.mapping(node, "openapi", allowed: ["also_answers"]) ?? [] {
            for (statusText, routes) in reader.mapping(answers, "also_answers") ?? [] {
                guard let status = Int(statusText), (100...599).contains(status) else {
                    reader.error(answers, "also_answers takes HTTP statuses (100 to 599) as keys, not '\(statusText)'")
                    continue
                }
                guard case .sequence(let sequence) = routes else {
                    reader.error(
                        routes, "also_answers \(status) must be a list of routes such as \"POST /users\", not \(reader.describe(routes))")
                    continue
                }
                for element in sequence {
                    guard let route = reader.string(element, "a route") else { continue }
                    let parts = route.split(separator: " ", omittingEmptySubsequences: true)
                    guard parts.count == 2, parts[1].hasPrefix("/"), parts[0].allSatisfy(\.isLetter) else {
                        reader.error(element, "a route is a method and a path, such as \"POST /users\", not '\(route)'")
                        continue
                    }
                    result.append(.init(status: status, method: parts[0].uppercased(), path: String(parts[1])))
                }
            }
        }
        return result
    }

    private static func read(_ path: String, into diagnostics: inout [ContractDiagnostic]) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            diagnostics.append(ContractDiagnostic(file: path, line: 0, column: 0, message: "cannot read the file"))
            return nil
        }
        guard let text = String(data: data, encoding: .utf8) else {
            diagnostics.append(ContractDiagnostic(file: path, line: 0, column: 0, message: "the file is not UTF-8 text"))
            return nil
        }
        return text
    }

    private static func compose(_ yaml: String, reader: inout YAMLReader) -> Node? {
        do {
            guard let node = try Yams.compose(yaml: yaml) else {
                reader.error(at: nil, "the file is empty")
                return nil
            }
            return node
        } catch let error as YamlError {
            switch error {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                let started = context.map { " (\($0.text) started at line \($0.mark.line))" } ?? ""
                reader.error(at: mark, "invalid YAML: \(problem)\(started)")
            case .duplicatedKeysInMapping(let duplicates, let context):
                reader.error(at: context.mark, "duplicate keys: \(duplicates.joined(separator: ", "))")
            default:
                reader.error(at: nil, "invalid YAML: \(error)")
            }
            return nil
        } catch {
            reader.error(at: nil, "invalid YAML: \(error)")
            return nil
        }
    }
}
