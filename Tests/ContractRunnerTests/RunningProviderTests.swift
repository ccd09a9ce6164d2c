import ContractKit
import ContractRunner
import Foundation
import ProcessKit
import Testing

/// Starting the provider a run replays against, as `contract verify` does, from library code.
@Suite struct RunningProviderTests {
    /// A provider that needs nothing beyond the system: Python's file server, serving the
    /// run's scratch folder. The start-up allowance is generous: this is about starting and
    /// stopping, and a full test run on two cores once kept it from answering within 30 s.
    static let contractYAML = """
        provider:
          command: python3 -m http.server {{port}} --bind 127.0.0.1 --directory {{scratch}}
          ready: /
          base_url: http://127.0.0.1:{{port}}
          startup_timeout: 120
        """

    @Test func startsTheProviderContractYAMLNamesAndStopsIt() async throws {
        let contracts = try TemporaryFolder("running-provider", files: ["contract.yaml": Self.contractYAML])
        defer { contracts.remove() }
        let suite = ContractLoader.load(directory: contracts.path)

        let running = try await RunningProvider.start(suite, directory: contracts.path)
        let process = try #require(running.process)
        try "here".write(to: running.environment.scratch.appendingPathComponent("probe.txt"), atomically: true, encoding: .utf8)
        let answer = try await HTTPTransport(baseURL: process.baseURL).send(
            ContractRequest(method: "GET", target: "/probe.txt", headers: [], body: nil))
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == "here")
        #expect(running.states(suite) != nil)

        running.close()
        #expect(!FileManager.default.fileExists(atPath: running.environment.scratch.path))
        await #expect(throws: (any Error).self) {
            _ = try await HTTPTransport(baseURL: process.baseURL, timeout: .seconds(2)).send(
                ContractRequest(method: "GET", target: "/", headers: [], body: nil))
        }
    }

    @Test func aBaseURLIsReachedNotStartedAndStubOnlyStartsNothing() async throws {
        let contracts = try TemporaryFolder("running-provider", files: ["contract.yaml": Self.contractYAML])
        defer { contracts.remove() }
        let suite = ContractLoader.load(directory: contracts.path)

        let external = try await RunningProvider.start(suite, directory: contracts.path, baseURL: "http://127.0.0.1:9")
        #expect(external.process?.baseURL == "http://127.0.0.1:9")
        #expect(external.process?.variables["port"] == .string("9"))
        external.close()

        let none = try await RunningProvider.start(suite, directory: contracts.path, live: false)
        #expect(none.process == nil)
        #expect(none.states(suite) == nil)
        none.close()
    }

    @Test func whatCannotStartIsAClearError() async throws {
        let empty = try TemporaryFolder("running-provider")
        defer { empty.remove() }
        await #expect {
            _ = try await RunningProvider.start(ContractLoader.load(directory: empty.path), directory: empty.path)
        } throws: { error in
            "\(error)" == "no contract.yaml in \(empty.path) and no --base-url"
        }

        let failing = try TemporaryFolder(
            "running-provider",
            files: [
                "contract.yaml":
                    "provider:\n  command: sh -c 'echo broken; exit 7'\n  base_url: http://127.0.0.1:{{port}}\n  startup_timeout: 5\n"
            ])
        defer { failing.remove() }
        await #expect {
            _ = try await RunningProvider.start(ContractLoader.load(directory: failing.path), directory: failing.path)
        } throws: { error in
            "\(error)".contains("broken")
        }
    }

    /// The provider's port is one no outgoing connection can hold before the provider binds
    /// it: below the system's ephemeral range (whence a connection's local port, and port 0,
    /// come), and free.
    @Test func theProvidersPortIsFreeAndBelowTheEphemeralRange() throws {
        #if os(Linux)
            let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
            let ephemeral = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
            try #require(ephemeral > 11_000, "this machine's ephemeral range leaves no room below it")
            var ports = Set<Int>()
            for _ in 0..<50 {
                let port = try ProviderProcess.freePort()
                #expect((10_000..<ephemeral).contains(port))
                ports.insert(port)
            }
            #expect(ports.count > 40, "chosen at random, not in turn")
        #endif
    }
}
