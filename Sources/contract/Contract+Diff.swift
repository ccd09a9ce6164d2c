import ArgumentParser
import ContractEvolution
import ContractKit
import Foundation

extension ContractCommand {
    /// `contract diff OLD NEW [--json]`: what changed between two versions of the contracts,
    /// and whether it breaks a client.
    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two versions of the contracts and classify each change as breaking or safe for a client.",
            discussion: """
                OLD and NEW are folders of contracts, or git:REF:PATH (the folder PATH at revision REF), \
                or git:REF (the other argument's folder at REF). Interactions match by file name and \
                interaction name. Exit status: 0 nothing breaks, 1 something breaks, 2 bad arguments \
                or contracts that do not load.
                """
        )

        @Argument(help: "The old contracts: a folder, git:REF:PATH or git:REF.")
        var old: String

        @Argument(help: "The new contracts: a folder, git:REF:PATH or git:REF.")
        var new: String

        @Flag(help: "Print a JSON document instead of the text report.")
        var json = false

        func run() async throws {
            let before = try Self.side(old, other: new)
            let after = try Self.side(new, other: old)
            let report = ContractDiffReport(changes: ContractDiff.changes(old: before, new: after))
            if json {
                print(try report.json.prettyText())
            } else {
                print(report.text, terminator: "")
            }
            if report.hasBreakingChanges { throw ContractCommand.Status.failures }
        }

        /// The contracts of one side, their files named as the user wrote the side; exits 2 when
        /// they cannot be read or loaded (`command` begins the message; `can-i-deploy` reads its sides here too).
        static func side(_ argument: String, other: String, command: String = "contract diff") throws -> [Contract] {
            do {
                let side = try ContractSide.parse(argument, other: other)
                let (folder, cleanUp) = try side.materialize()
                defer { cleanUp() }
                let suite = ContractLoader.load(directory: folder)
                guard suite.diagnostics.isEmpty else {
                    for diagnostic in suite.diagnostics {
                        let file =
                            side.ref != nil && diagnostic.file.hasPrefix(folder)
                            ? side.label((diagnostic.file as NSString).lastPathComponent) : diagnostic.file
                        let shown = ContractDiagnostic(
                            file: file, line: diagnostic.line, column: diagnostic.column, message: diagnostic.message)
                        FileHandle.standardError.write(Data("\(shown)\n".utf8))
                    }
                    FileHandle.standardError.write(Data("\(suite.diagnostics.count) problem(s) in the contracts of \(argument)\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
                guard side.ref != nil else { return suite.contracts }
                return suite.contracts.map { contract in
                    let file = side.label((contract.file as NSString).lastPathComponent)
                    let interactions = contract.interactions.map { $0.with(location: SourceLocation(file: file, line: $0.location.line)) }
                    return Contract(name: contract.name, file: file, interactions: interactions)
                }
            } catch let problem as ContractSide.Problem {
                FileHandle.standardError.write(Data("\(command): \(problem)\n".utf8))
                throw ContractCommand.Status.brokenContracts
            }
        }
    }
}
