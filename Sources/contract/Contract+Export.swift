import ArgumentParser
import ContractInterop
import ContractKit
import Foundation

extension ContractCommand {
    /// `contract export openapi|pact DIR`: the contracts in another tool's format.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the contracts as an OpenAPI document or a Pact file.",
            subcommands: [OpenAPI.self, Pact.self]
        )
    }
}

extension ContractCommand.Export {
    /// `contract export openapi DIR [--title T] [--version V] [--out FILE]`.
    struct OpenAPI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "openapi",
            abstract: "Write an OpenAPI 3.1 document (JSON) built from the contracts' requests and matchers."
        )

        @Argument(help: "The contracts directory.")
        var directory: String

        @Option(help: "The document's info.title.")
        var title = "API"

        @Option(help: "The document's info.version.")
        var version = "1.0.0"

        @Flag(help: "Leave out x-contract-interactions (the interactions as written, for `contract import openapi`): a smaller document.")
        var noInteractions = false

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let suite = try load(directory)
            var exporter = OpenAPIExporter(title: title, version: version)
            exporter.carriesInteractions = !noInteractions
            exporter.alsoAnswers = suite.provider?.alsoAnswers ?? []
            let undocumentable = exporter.undocumentable(in: suite.contracts)
            guard undocumentable.isEmpty else {
                let lines = undocumentable.map { "\(directory)/contract.yaml: openapi also_answers: \($0)\n" }.joined()
                FileHandle.standardError.write(Data(lines.utf8))
                throw ExitCode.failure
            }
            let document = exporter.document(for: suite.contracts)
            try output.write(try document.prettyText())
        }
    }
}

extension ContractCommand.Export {
    /// `contract export pact DIR --consumer NAME --provider NAME [--out FILE]`.
    struct Pact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pact",
            abstract: "Write a Pact file (specification v3) of the contracts, for the Pact verifier and Pact tooling.",
            discussion: """
                What Pact cannot check (numeric bounds, strict objects, a JWT's claims, the value of \
                a saved variable) is reported as FILE:INTERACTION: MESSAGE on standard error. An \
                interaction that sends saved values gets the provider state '\(PactExporter.savedValuesState)': \
                `contract pact-states DIR` serves the state-change URL that sets it up.
                """
        )

        @Argument(help: "The contracts directory.")
        var directory: String

        @Option(help: "The consumer's name.")
        var consumer: String

        @Option(help: "The provider's name.")
        var provider: String

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let suite = try load(directory)
            let export = PactExporter(consumer: consumer, provider: provider).export(suite.contracts)
            try output.write(try export.document.prettyText())
            for note in export.notes {
                FileHandle.standardError.write(Data("\(note)\n".utf8))
            }
        }
    }
}

/// Where an export goes: a file, or standard output.
struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("out"), help: "The file to write (default: standard output).")
    var file: String?

    init() {}

    init(file: String?) {
        self.file = file
    }

    func write(_ text: String) throws {
        guard let file else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("cannot write \(file): \(error.localizedDescription)\n".utf8))
            throw ExitCode.failure
        }
    }
}
