import ArgumentParser
import ContractStub
import ContractStubServer
import Foundation

extension ContractCommand {
    /// `contract stub DIR --port P [--deliver-to URL] [--resume-at INTERACTION]`: serve the
    /// stub over HTTP until SIGINT or SIGTERM, posting the contracts' deliveries to `URL` +
    /// their path.
    struct Stub: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a stub built from the contracts, for manual use and non-Swift clients.")

        @Argument(help: "The contracts directory.")
        var directory: String

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on (0 picks a free one).")
        var port = 8080

        @Option(name: .customLong("state"), help: "A provider state to activate (repeatable); default: all.")
        var states: [String] = []

        @Option(
            name: .customLong("resume-at"),
            help: ArgumentHelp(
                "Start the file of this interaction at it, as if the ones before it had been answered (repeatable; FILE.yaml:INTERACTION for a name several files share): an app's first authorization request gets a signed-in browser's answer.",
                valueName: "interaction"
            )
        )
        var resumeAt: [String] = []

        @Option(
            name: .customLong("deliver-to"),
            help:
                "POST each delivery the contracts declare (delivers:) to this base URL + the delivery's path; a failed post is logged to standard error."
        )
        var deliverTo: String?

        @Option(
            name: .customLong("fault"),
            help: ArgumentHelp(
                "A fault for a client's resilience test (repeatable): INTERACTION:FAULT[,retry-after=S][,times=N], FAULT one of delay=SECONDS, reset, status=CODE, truncated-body.",
                valueName: "fault"
            )
        )
        var faults: [String] = []

        @Flag(
            name: .customLong("test-clock"),
            help:
                "Route GET/POST /test/clock as authd's --test-clock does: POST {\"advance\": seconds} moves the stub's clock (after: interactions, token expiry)."
        )
        var testClock = false

        func validate() throws {
            if let deliverTo {
                guard let url = URL(string: deliverTo), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()),
                    url.host != nil
                else {
                    throw ValidationError("--deliver-to must be an http(s) URL, not '\(deliverTo)'.")
                }
            }
        }

        func run() async throws {
            let suite = try load(directory)
            let stub: ContractStub
            do {
                stub = try ContractStub(contracts: suite.contracts, activeStates: states.isEmpty ? nil : Set(states))
            } catch {
                FileHandle.standardError.write(Data("the stub cannot be built from these contracts:\n\(error)\n".utf8))
                throw ContractCommand.Status.brokenContracts
            }
            for text in resumeAt {
                // FILE.yaml:INTERACTION names the file too, for a name several files share.
                let split = text.range(of: ".yaml:").map { (String(text[..<$0.lowerBound]) + ".yaml", String(text[$0.upperBound...])) }
                do {
                    try stub.resume(at: split?.1 ?? text, in: split?.0)
                } catch {
                    FileHandle.standardError.write(Data("--resume-at: \(error)\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
            }
            for text in faults {
                do {
                    let (fault, interaction, times) = try StubFault.parse(text)
                    try stub.inject(fault, for: interaction, times: times)
                } catch {
                    FileHandle.standardError.write(Data("--fault \(error)\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
            }
            if let deliverTo, let url = URL(string: deliverTo) {
                stub.forwardDeliveries(to: url)
            }
            let host = self.host
            try await ContractStubServer.run(
                stub, host: host, port: port, clockPath: testClock ? "/test/clock" : nil, gracefulShutdownSignals: true
            ) { port in
                FileHandle.standardOutput.write(Data("contract stub listening on http://\(host):\(port)\n".utf8))
            }
        }
    }
}
