import AuthPostgres
import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the built `authd` executable.
enum AuthdBinary {
    /// The `authd` built beside the test bundle.
    static var path: String {
        get throws {
            try #require(BuiltExecutable.path(named: "authd"), "authd is not built beside the test runner")
        }
    }

    /// The tests' key-encryption key (base64 of the bytes 0…31), in every child's
    /// `AUTHD_KEY_ENCRYPTION_KEY` unless a test removes it.
    static let keyEncryptionKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()

    /// Our environment without `DATABASE_URL`, with the tests' key-encryption key, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        environment["AUTHD_KEY_ENCRYPTION_KEY"] = keyEncryptionKey
        return environment.merging(extra) { _, new in new }
    }

    /// Runs `authd arguments` to completion, waiting on a thread of its own: a blocked thread
    /// of the pool (two on two cores) would stall every other test of the run.
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = environment()) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let child = try ChildProcess(executable: try path, arguments: arguments, environment: environment, input: input)
        let status = await child.waitForExit()
        return (status, child.standardOutput, child.standardError)
    }

    /// Starts `authd serve …` and waits for its "listening" line; returns the process and base URL.
    static func serve(_ arguments: [String], environment: [String: String] = environment()) async throws -> (ChildProcess, URL) {
        let child = try ChildProcess(executable: try path, arguments: ["serve", "--port", "0"] + arguments, environment: environment)
        for _ in 0..<600 {
            if let line = child.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("authd listening on ") }),
                let url = URL(string: String(line.dropFirst("authd listening on ".count)))
            {
                return (child, url)
            }
            if let status = child.poll() {
                Issue.record("authd serve exited with \(status): \(child.standardError)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        child.send(SIGKILL)
        Issue.record("authd serve did not start listening: \(child.standardError)")
        throw CancellationError()
    }

    /// Sends SIGTERM and waits up to 20 s for the exit status.
    /// Runs `body` with `authd serve …` listening, and stops it afterwards, also when `body`
    /// throws (a failed `#require`), so a failing test leaves no server behind. Returns what
    /// `body` returned and the server's exit status.
    static func withServer<T: Sendable>(
        _ arguments: [String], environment: [String: String] = environment(), _ body: (URL) async throws -> T
    ) async throws -> (value: T, status: Int32?) {
        let (child, base) = try await serve(arguments, environment: environment)
        do {
            let value = try await body(base)
            return (value, try await stop(child))
        } catch {
            _ = try? await stop(child)
            throw error
        }
    }

    static func stop(_ child: ChildProcess) async throws -> Int32? {
        child.send(SIGTERM)
        for _ in 0..<200 {
            if let status = child.poll() { return status }
            try await Task.sleep(for: .milliseconds(100))
        }
        child.send(SIGKILL)
        child.wait()
        return nil
    }

    /// POSTs a login and returns the status and JSON body.
    static func login(_ base: URL, _ username: String, _ password: String) async throws -> (Int, [String: Any]) {
        try await post(base, "login", ["username": username, "password": password])
    }

    /// POSTs `body` as JSON to `path` (with `Authorization: Bearer` when given) and returns
    /// the status and JSON body.
    static func post(_ base: URL, _ path: String, _ body: [String: Any], bearer: String? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? [:] : (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    /// GETs `path` (with `Authorization: Bearer` when given); the status and JSON body.
    static func get(_ base: URL, _ path: String, bearer: String? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: base.appendingPathComponent(path))
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? [:] : (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }
}
