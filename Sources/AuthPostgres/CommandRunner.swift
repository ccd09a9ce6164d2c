import Foundation

/// Runs an external program to completion and captures what it printed.
///
/// Output goes through a temporary file, not a pipe: `pg_ctl start` leaves a server
/// running that would otherwise hold the pipe open.
///
/// ```swift
/// let result = try CommandRunner.run("/usr/bin/env", ["true"])
/// result.status   // 0
/// ```
public enum CommandRunner {
    /// The exit status and combined output of a finished program.
    public struct Result: Sendable {
        /// Exit status.
        public let status: Int32
        /// Standard output and standard error, interleaved.
        public let output: String
    }

    /// Runs `executable` with `arguments` and waits for it.
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil, in directory: String? = nil) throws -> Result {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("authd-cmd-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = output
        process.standardError = output
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, output: text)
    }

    /// The first executable called `name` on `PATH`, if any.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
