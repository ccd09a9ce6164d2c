import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an external program to completion and captures what it printed.
///
/// Built on `posix_spawn` and `waitpid`: `pg_ctl start` leaves a server running that
/// inherits the output, so output goes to a temporary file rather than a pipe, and the
/// wait does not depend on a run loop.
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

    /// A program that could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// Runs `executable` with `arguments` and waits for it.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("authd-cmd-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        var arguments = argv + [nil]
        let spawned = arguments.withUnsafeMutableBufferPointer { pointer -> Int32 in
            guard let base = pointer.baseAddress else { return EINVAL }
            return posix_spawn(&pid, executable, &actions, nil, base, environ)
        }
        guard spawned == 0 else {
            throw LaunchError(description: "could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Result(status: exitStatus, output: output)
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
