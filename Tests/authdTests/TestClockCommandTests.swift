import AuthTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `authd serve --test-clock` routes the clock a test steps; a plain `serve` does not.
@Suite struct TestClockCommandTests {
    @Test func onlyServeWithTestClockHasAClockToStep() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let (_, stepped) = try await AuthdBinary.withServer(url + ["--test-clock"]) { base in
            let (status, body) = try await AuthdBinary.post(base, "test/clock", ["advance": 901])
            #expect(status == 200 && body["stepped"] as? Double == 901)
        }
        #expect(stepped == 0)
        let (_, plain) = try await AuthdBinary.withServer(url) { base async throws in
            #expect(try await AuthdBinary.post(base, "test/clock", ["advance": 901]).0 == 404)
        }
        #expect(plain == 0)
    }
}
