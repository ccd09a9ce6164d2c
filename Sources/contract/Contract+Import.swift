import ArgumentParser
import ContractInterop
import ContractKit
import Foundation

extension ContractCommand {
    /// `contract import pact FILE… --out DIR`, `contract import openapi FILE --out DIR`:
    /// contracts from another tool's files.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write YAML contracts from another tool's files.",
            subcommands: [Pact.self, OpenAPI.self]
        )
    }
}

extension ContractCommand.Import {
    /// Creates the folder `out` (and its parents) for the contracts; exits 1 when it cannot.
    static func createFolder(_ out: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            FileHandle.standardError.write(Data("cannot create \(out): \(error.localizedDescription)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The provider states `contract.yaml` at `configuration` defines; none when it is missing or broken.
    static func definedStates(in configuration: String) -> Set<String> {
        FileManager.default.contents(atPath: configuration)
            .flatMap { ContractLoader.parseProvider(yaml: String(decoding: $0, as: UTF8.self), file: configuration).0?.states.keys }
            .map(Set.init) ?? []
    }
}

extension ContractCommand.Import {
    /// `contract import pact FILE… --out DIR`.
    struct Pact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pact",
            abstract: "Write a YAML contract per Pact file (specification v2, v3 or v4), one per consumer.",
            discussion: """
                What a contract cannot hold (generators, message interactions, rules without an \
                equivalent) is reported as FILE:INTERACTION: MESSAGE on standard error. The provider \
                states the interactions use must be defined in DIR/contract.yaml before `contract verify DIR`.
                """
        )

        @Argument(help: "Pact JSON files.")
        var files: [String]

        @Option(help: "The contracts directory to write into (created if missing).")
        var out: String

        func run() async throws {
            var inputs: [(path: String, data: Data)] = []
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("\(file): cannot read the file\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
                inputs.append((file, data))
            }
            let result = PactImporter.importFiles(inputs)
            for error in result.errors {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
            }
            guard result.errors.isEmpty else { throw ContractCommand.Status.brokenContracts }
            try ContractCommand.Import.createFolder(out)
            for file in result.files {
                let path = (out as NSString).appendingPathComponent(file.name)
                let output = OutputOptions(file: path)
                try output.write(file.yaml)
                print("\(path): \(file.interactions) interactions of \(file.consumer) → \(file.provider) from \(file.source)")
            }
            for note in result.notes {
                FileHandle.standardError.write(Data("\(note)\n".utf8))
            }
            let states = result.files.flatMap(\.states)
            let configuration = (out as NSString).appendingPathComponent(ContractLoader.providerFileName)
            let defined = ContractCommand.Import.definedStates(in: configuration)
            var missing: [String] = []
            for state in states where !defined.contains(state) && !missing.contains(state) { missing.append(state) }
            if !missing.isEmpty {
                print(
                    "Provider states to define in \(configuration) before `contract verify \(out)`: \(missing.map { "'\($0)'" }.joined(separator: ", "))"
                )
            }
        }
    }
}

extension ContractCommand.Import {
    /// `contract import openapi FILE --out DIR [--schemas-only]`.
    struct OpenAPI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "openapi",
            abstract: "Write YAML contracts from an OpenAPI 3.0, 3.1 or 3.2 document (JSON or YAML).",
            discussion: """
                One interaction per operation and declared status, matchers from the schemas, one \
                contract file per tag (or first path segment), and DIR/contract.yaml as a skeleton \
                unless it exists. What cannot be carried is reported as FILE: WHERE: MESSAGE on \
                standard error and in DIR/IMPORT-NOTES.md. A document `contract export openapi` \
                wrote gives back the contracts it came from (x-contract-interactions).
                """
        )

        @Argument(help: "The OpenAPI document.")
        var file: String

        @Option(help: "The contracts directory to write into (created if missing).")
        var out: String

        @Flag(help: "Derive every interaction from the schemas, ignoring the interactions an export carries.")
        var schemasOnly = false

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("\(file): cannot read the file\n".utf8))
                throw ContractCommand.Status.brokenContracts
            }
            let result: OpenAPIImporter.Result
            do {
                result = try OpenAPIImporter.importDocument(data, file: file, carried: !schemasOnly)
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ContractCommand.Status.brokenContracts
            }
            try ContractCommand.Import.createFolder(out)
            for contractFile in result.files {
                let path = (out as NSString).appendingPathComponent(contractFile.name)
                try OutputOptions(file: path).write(contractFile.yaml)
                let how = contractFile.carried ? "as the export carried them" : "from the schemas"
                print("\(path): \(contractFile.contract.interactions.count) interactions \(how)")
            }
            let configuration = (out as NSString).appendingPathComponent(ContractLoader.providerFileName)
            if FileManager.default.fileExists(atPath: configuration) {
                let defined = ContractCommand.Import.definedStates(in: configuration)
                let missing = result.states.filter { !defined.contains($0) }
                if !missing.isEmpty {
                    print("Provider states to define in \(configuration): \(missing.map { "'\($0)'" }.joined(separator: ", "))")
                }
            } else {
                try OutputOptions(file: configuration).write(result.configuration)
                print(
                    "\(configuration): a skeleton: fill in how to start the provider\(result.states.isEmpty ? "" : " and set up \(result.states.count) states")"
                )
            }
            let notesPath = (out as NSString).appendingPathComponent("IMPORT-NOTES.md")
            if result.notes.isEmpty {
                try? FileManager.default.removeItem(atPath: notesPath)
            } else {
                for note in result.notes { FileHandle.standardError.write(Data("\(note)\n".utf8)) }
                let lines = result.notes.map { "- `\($0.location)`: \($0.message)" }
                let text =
                    "# What `contract import openapi` did not carry from \((file as NSString).lastPathComponent)\n\n"
                    + lines.joined(separator: "\n") + "\n"
                try OutputOptions(file: notesPath).write(text)
                print("\(notesPath): \(result.notes.count) notes")
            }
        }
    }
}
