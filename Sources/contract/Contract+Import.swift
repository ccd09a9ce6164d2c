import ArgumentParser
import ContractInterop
import ContractKit
import Foundation

extension ContractCommand {
    /// `contract import pact FILE… --out DIR`: contracts from another tool's files.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write YAML contracts from another tool's files.",
            subcommands: [Pact.self]
        )
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
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            } catch {
                FileHandle.standardError.write(Data("cannot create \(out): \(error.localizedDescription)\n".utf8))
                throw ExitCode.failure
            }
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
            let defined = FileManager.default.contents(atPath: configuration)
                .flatMap { ContractLoader.parseProvider(yaml: String(decoding: $0, as: UTF8.self), file: configuration).0?.states.keys }
                .map(Set.init) ?? []
            var missing: [String] = []
            for state in states where !defined.contains(state) && !missing.contains(state) { missing.append(state) }
            if !missing.isEmpty {
                print("Provider states to define in \(configuration) before `contract verify \(out)`: \(missing.map { "'\($0)'" }.joined(separator: ", "))")
            }
        }
    }
}
