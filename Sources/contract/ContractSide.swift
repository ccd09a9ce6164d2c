import Foundation

/// One side of `contract diff`: a folder of contracts, or `git:REF:PATH` (`git:REF` takes
/// the other side's folder), copied out of git into a temporary folder to be loaded.
///
/// ```swift
/// let side = try ContractSide.parse("git:main", other: "contracts/")   // contracts/ at main
/// let folder = try side.materialize()                                   // a folder to load
/// ```
struct ContractSide {
    /// A side that cannot be read: the message for standard error.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The git commit (or any revision), nil for a folder on disk.
    let ref: String?
    /// The folder: on disk, or inside the commit relative to the working directory.
    let path: String

    /// How the side's files are named in the report: `contracts/login.yaml`, or `main:contracts/login.yaml`.
    func label(_ name: String) -> String {
        let file = (path as NSString).appendingPathComponent(name)
        return ref.map { "\($0):\(file)" } ?? file
    }

    /// Reads `argument`; `other` is the other side's argument, whose folder a bare `git:REF` means.
    static func parse(_ argument: String, other: String) throws -> ContractSide {
        guard argument.hasPrefix("git:") else { return ContractSide(ref: nil, path: argument) }
        let rest = argument.dropFirst("git:".count)
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let ref = String(parts[0])
        guard !ref.isEmpty else { throw Problem(description: "'\(argument)': git: needs a revision (git:REF or git:REF:PATH)") }
        if parts.count == 2, !parts[1].isEmpty { return ContractSide(ref: ref, path: String(parts[1])) }
        guard !other.hasPrefix("git:") else {
            throw Problem(description: "'\(argument)' takes its folder from the other argument, which is git: too: write git:REF:PATH")
        }
        return ContractSide(ref: ref, path: other)
    }

    /// A folder holding the side's contract files: the folder itself, or a temporary copy of
    /// the `*.yaml` / `*.yml` files of `path` at `ref` (removed by `cleanUp`).
    func materialize() throws -> (folder: String, cleanUp: () -> Void) {
        guard let ref else { return (path, {}) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "contract-diff-\(UUID().uuidString.prefix(12).lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cleanUp: () -> Void = { try? FileManager.default.removeItem(at: folder) }
        do {
            let directory = path.hasSuffix("/") ? path : path + "/"
            let listing = try Self.git(["ls-tree", "--name-only", ref, "--", directory], what: "\(path) at \(ref)")
            let names = String(decoding: listing, as: UTF8.self).split(separator: "\n").map(String.init)
            guard !names.isEmpty else { throw Problem(description: "\(path) at \(ref): no such folder in the commit") }
            for name in names where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                let text = try Self.git(["show", "\(ref):./\(name)"], what: "\(name) at \(ref)")
                try text.write(to: folder.appendingPathComponent((name as NSString).lastPathComponent))
            }
        } catch {
            cleanUp()
            throw error
        }
        return (folder.path, cleanUp)
    }

    /// Runs `git ARGUMENTS` in the working directory: its standard output, or a ``Problem`` with its standard error.
    private static func git(_ arguments: [String], what: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Problem(description: "cannot run git: \(error.localizedDescription)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Problem(description: "cannot read \(what) from git: \(text)")
        }
        return data
    }
}
