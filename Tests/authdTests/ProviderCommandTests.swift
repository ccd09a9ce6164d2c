import AuthTestSupport
import Foundation
import Testing

/// `authd provider add` refuses what it cannot use, in one line, and adds nothing.
@Suite struct ProviderCommandTests {
    @Test func aProviderThatCannotBeUsedIsRefusedInOneLine() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let refusals: [([String], String)] = [
            (["--issuer", "http://accounts.example.com", "--client-id", "a"], "must be an https URL"),
            (["--issuer", "http://127.0.0.1:9", "--client-id", "a"], "could not be fetched"),
            (["--issuer", "https://accounts.example.com"], "--client-id is needed"),
            (["--kind", "apple", "--client-id", "com.example.app"], "needs --team-id, --key-id and --private-key-file"),
            (["--kind", "oidc", "--client-id", "a"], "--issuer is needed"),
        ]
        for (arguments, says) in refusals {
            let result = try await AuthdBinary.run(["provider", "add", "corp"] + arguments + url)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        let listed = try await AuthdBinary.run(["provider", "list"] + url)
        #expect(listed.status == 0)
        #expect(!listed.stdout.contains("corp"))
        let removed = try await AuthdBinary.run(["provider", "remove", "corp"] + url)
        #expect(removed.status != 0)
        #expect(removed.stderr.contains("no provider named corp"))
    }
}
