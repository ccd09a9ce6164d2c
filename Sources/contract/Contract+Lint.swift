import ArgumentParser
import ContractKit
import Foundation

extension ContractCommand {
    /// `contract lint DIR`: load and check without running anything.
    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check contract files without running them.")

        @Argument(help: "The contracts directory.")
        var directory: String

        func run() async throws {
            let suite = try load(directory)
            let interactions = suite.contracts.map(\.interactions.count).reduce(0, +)
            print("\(suite.contracts.count) contracts, \(interactions) interactions: OK")
        }
    }
}

/// Loads `directory`, printing every diagnostic to standard error and exiting 2 if any.
func load(_ directory: String) throws -> ContractSuite {
    let suite = ContractLoader.load(directory: directory)
    guard suite.diagnostics.isEmpty else {
        for diagnostic in suite.diagnostics {
            FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
        }
        FileHandle.standardError.write(Data("\(suite.diagnostics.count) problem(s) in the contracts\n".utf8))
        throw ContractCommand.Status.brokenContracts
    }
    return suite
}
