import ArgumentParser
import ContractKit
import ContractRecording
import ContractRunner
import ContractStubServer
import Foundation
import Synchronization

extension ContractCommand {
    /// `contract record --target URL --out DIR`: a proxy that writes contracts from the
    /// traffic passing through it when it stops.
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Proxy to a running provider and write contracts from the traffic when stopped (SIGINT or SIGTERM).",
            discussion: """
                Point a client at the printed address. Each exchange becomes an interaction, in files named \
                after the first path segment; values that differ between runs become matchers, values a later \
                request sends back become saves, and request secrets become {{env.NAME}} (unless --keep-secrets).
                """
        )

        @Option(help: "The provider to forward to (http://host:port).")
        var target: String

        @Option(help: "The folder to write the contract files into (created if needed).")
        var out: String

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on (0 picks a free one).")
        var port = 0

        @Flag(name: .customLong("keep-secrets"), help: "Write passwords, tokens and credentials as sent instead of {{env.NAME}}.")
        var keepSecrets = false

        func validate() throws {
            guard let url = URL(string: target), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--target must be an http:// or https:// URL.")
            }
        }

        func run() async throws {
            let log = Mutex<[RecordedExchange]>([])
            let transport = HTTPTransport(baseURL: target)
            let host = self.host
            let target = self.target
            let out = self.out
            try await ContractStubServer.serve(
                host: host, port: port, gracefulShutdownSignals: true,
                onListening: { port in
                    FileHandle.standardOutput.write(
                        Data(
                            "contract record listening on http://\(host):\(port), forwarding to \(target); stop with Ctrl-C to write \(out)\n"
                                .utf8))
                }
            ) { request in
                var forwarded = request
                forwarded.headers = request.headers.filter { !Self.hopByHop.contains($0.name.lowercased()) }
                do {
                    var response = try await transport.send(forwarded)
                    response.headers = response.headers.filter { !Self.hopByHop.contains($0.name.lowercased()) }
                    log.withLock { $0.append(RecordedExchange(request: forwarded, response: response)) }
                    return response
                } catch {
                    let body = JSONValue.object([
                        "error": .string("bad_gateway"), "error_description": .string("The target did not answer: \(error)"),
                    ])
                    return ContractResponse(status: 502, headers: [("Content-Type", "application/json")], body: Data(body.description.utf8))
                }
            }
            try write(log.withLock { $0 })
        }

        /// Headers of one connection, not of the exchange.
        static let hopByHop: Set<String> = [
            "host", "connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "te", "upgrade",
        ]

        private func write(_ exchanges: [RecordedExchange]) throws {
            guard !exchanges.isEmpty else {
                print("nothing was recorded; \(out) is unchanged")
                return
            }
            let output = ContractRecorder.record(exchanges, keepSecrets: keepSecrets)
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            var written: [String] = []
            for file in output.files {
                // Never overwrite: a name in use gets a number.
                let base = Contract.freeName((file.name as NSString).deletingPathExtension, separator: "-") {
                    FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent("\($0).yaml"))
                }
                let name = "\(base).yaml"
                try file.yaml.write(toFile: (out as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
                written.append("\(name) (\(file.interactions) interaction\(file.interactions == 1 ? "" : "s"))")
            }
            print("recorded \(exchanges.count) exchange\(exchanges.count == 1 ? "" : "s") into \(out): \(written.joined(separator: ", "))")
            if !output.secrets.isEmpty {
                print("set these environment variables before verifying (the contracts read secrets from them):")
                for secret in output.secrets { print("  \(secret.variable)  (\(secret.usedFor))") }
            }
            print("check them with: contract verify \(out) --base-url \(target)")
        }
    }
}
