import ArgumentParser
import ContractEvolution
import ContractKit
import Foundation

extension ContractCommand {
    /// `contract can-i-deploy NEW --usage FILE… [--against OLD] [--json]`: whether the changes
    /// from OLD to NEW break an interaction some client's tests use.
    struct CanIDeploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "can-i-deploy",
            abstract: "Fail when a breaking change (as contract diff classifies it) touches an interaction a client uses.",
            discussion: """
                Each --usage file is a client's usage, written by ContractStub in the client's tests \
                (CONTRACT_USAGE_DIR, or stub.writeUsage(to:client:)); a folder stands for its *.json files. \
                NEW and OLD are folders, git:REF:PATH or git:REF as for contract diff; OLD defaults to \
                git:HEAD (NEW as last committed). Exit status: 0 no client is broken, 1 a breaking change \
                touches an interaction a client uses, 2 bad arguments, unreadable usage files or contracts \
                that do not load.
                """
        )

        @Argument(help: "The new contracts: a folder, git:REF:PATH or git:REF.")
        var new: String

        @Option(parsing: .upToNextOption, help: "Clients' usage files (or folders of them).")
        var usage: [String]

        @Option(help: "The contracts the clients were tested against (default: git:HEAD, NEW as committed).")
        var against = "git:HEAD"

        @Flag(help: "Print a JSON document instead of the text report.")
        var json = false

        func validate() throws {
            guard !usage.isEmpty else { throw ValidationError("--usage needs at least one file.") }
        }

        func run() async throws {
            let usages = try readUsages()
            let old = try Diff.side(against, other: new, command: "contract can-i-deploy")
            let current = try Diff.side(new, other: against, command: "contract can-i-deploy")
            let check = DeployCheck(changes: ContractDiff.changes(old: old, new: current), usages: usages, old: old)
            if json {
                print(try check.json.prettyText(), terminator: "")
            } else {
                print(check.text, terminator: "")
            }
            if !check.deployable { throw ContractCommand.Status.failures }
        }

        /// Every usage file named, a folder's `*.json` in name order; exits 2 on one that cannot be read.
        private func readUsages() throws -> [ContractUsage] {
            var files: [String] = []
            for path in usage {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                    files += names.filter { $0.hasSuffix(".json") }.sorted().map { (path as NSString).appendingPathComponent($0) }
                } else {
                    files.append(path)
                }
            }
            var usages: [ContractUsage] = []
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("contract can-i-deploy: \(file): cannot read the usage file\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
                do {
                    usages.append(try ContractUsage(parsing: data))
                } catch {
                    FileHandle.standardError.write(Data("contract can-i-deploy: \(file): \(error)\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
            }
            guard !usages.isEmpty else {
                FileHandle.standardError.write(Data("contract can-i-deploy: no usage files in \(usage.joined(separator: ", "))\n".utf8))
                throw ContractCommand.Status.brokenContracts
            }
            return usages
        }
    }
}
