import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program started with `posix_spawn`, its standard output and error going to files.
///
/// Files rather than pipes, because `pg_ctl start` leaves a server behind that inherits
/// them; `waitpid` rather than Foundation's `Process`, so waiting needs no run loop. The
/// child inherits no other descriptor: sockets accepted without close-on-exec (SwiftNIO's
/// are) would stay open in it, so a connection the server closes would not end.
///
/// ```swift
/// let child = try ChildProcess(executable: "/bin/echo", arguments: ["hi"])
/// let status = child.wait()        // 0
/// child.standardOutput             // "hi\n"
/// ```
public final class ChildProcess: Sendable {
    /// A program that could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// The process id.
    public let pid: pid_t
    private let outputPath: String
    private let errorPath: String
    private let inputPath: String?

    /// Starts `executable`.
    /// - Parameters:
    ///   - environment: the child's environment; nil inherits ours.
    ///   - input: text for its standard input (else `/dev/null`).
    ///   - mergeErrors: send standard error to the standard output file.
    public init(
        executable: String,
        arguments: [String],
        environment: [String: String]? = nil,
        input: String? = nil,
        mergeErrors: Bool = false
    ) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("authd-child-\(UUID().uuidString)").path
        outputPath = base + ".out"
        errorPath = mergeErrors ? outputPath : base + ".err"
        if let input {
            let path = base + ".in"
            guard FileManager.default.createFile(atPath: path, contents: Data(input.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw LaunchError(description: "could not write the standard input of \(executable)")
            }
            inputPath = path
        } else {
            inputPath = nil
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergeErrors {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }

        #if canImport(Glibc)
            _ = Self.addCloseFrom?(&actions, 3)
        #endif
        // The child starts with no signal blocked and every signal's default action: a thread of
        // this process (an event loop's) blocks most signals, and posix_spawn would pass that mask
        // on, leaving a child that does not use signalfd (Python's) deaf to SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer { envp?.forEach { free($0) } }
        var argumentList = argv + [nil]
        var pid = pid_t()
        var spawned: Int32 = 0
        // ETXTBSY: a program written just before (a script of the tests') is still open for
        // writing in a child another thread forked meanwhile, until that child execs; it
        // passes within moments, so the spawn is tried again, up to a second.
        for attempt in 0..<100 {
            spawned = argumentList.withUnsafeMutableBufferPointer { arguments -> Int32 in
                guard let argumentsBase = arguments.baseAddress else { return EINVAL }
                guard var environmentList = envp.map({ $0 + [nil] }) else {
                    return posix_spawn(&pid, executable, &actions, &attributes, argumentsBase, environ)
                }
                return environmentList.withUnsafeMutableBufferPointer { variables -> Int32 in
                    posix_spawn(&pid, executable, &actions, &attributes, argumentsBase, variables.baseAddress)
                }
            }
            guard spawned == ETXTBSY, attempt < 99 else { break }
            usleep(10_000)
        }
        guard spawned == 0 else {
            throw LaunchError(description: "could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    #if canImport(Glibc)
        private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), found at run
        /// time: Swift's Glibc module does not declare it.
        private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast($0, to: AddCloseFrom.self)
        }
    #endif

    deinit {
        for path in Set([outputPath, errorPath] + (inputPath.map { [$0] } ?? [])) {
            unlink(path)
        }
    }

    /// What it wrote to standard output so far.
    public var standardOutput: String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// What it wrote to standard error so far.
    public var standardError: String {
        (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` (for example `SIGTERM`).
    public func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for it to end; returns its exit status, or 128 + the signal that killed it.
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return Self.exitStatus(status)
    }

    /// Waits for it to end on a thread of its own (``OwnThread``), so no task executor is
    /// blocked (a child is often waited for for a whole test).
    public func waitForExit() async -> Int32 {
        await OwnThread.run { self.wait() }
    }

    /// Its exit status if it has ended, else nil (does not block).
    public func poll() -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? Self.exitStatus(status) : nil
    }

    private static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
