import Foundation

/// Runs an external program to completion and captures what it printed.
///
/// ```swift
/// let result = try CommandRunner.run("/bin/echo", ["hello"])
/// result.status   // 0
/// result.output   // "hello\n"
/// ```
public enum CommandRunner {
    /// The exit status and combined output of a finished program.
    public struct Result: Sendable {
        /// Exit status (128 + signal number if it was killed).
        public let status: Int32
        /// Standard output and standard error, interleaved.
        public let output: String
    }

    /// Runs `executable` with `arguments` and waits for it.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let child = try ChildProcess(executable: executable, arguments: arguments, mergeErrors: true)
        let status = child.wait()
        return Result(status: status, output: child.standardOutput)
    }

    /// ``run(_:_:)``, waiting on a thread of its own: an async caller blocks none of the
    /// concurrency pool's threads (two on two cores) for the program's whole run.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> Result {
        let child = try ChildProcess(executable: executable, arguments: arguments, mergeErrors: true)
        let status = await child.waitForExit()
        return Result(status: status, output: child.standardOutput)
    }

    /// The first executable called `name` on `path` (default: `$PATH`), if any.
    public static func which(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
