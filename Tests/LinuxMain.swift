// The test bundle's entry point on Linux, in place of the one SwiftPM generates there (macOS
// ignores this file). SwiftPM's own runner lists XCTest cases from the index store, so a build
// without one (scripts/test-build: indexing is about a tenth of a clean test build) could not link
// it; every test here is a Swift Testing test, which finds its tests at run time.
//
// scripts/test starts this with `--testing-library swift-testing` and the filters given, as
// `swift test --enable-swift-testing --disable-xctest` does. A plain `swift test` starts it
// once as for XCTest, with no arguments: that runs every test too. Only XCTest's listing
// (`--dump-tests-json`, which a plain `swift test --filter` asks for) has no answer here.
import Foundation
import Testing

@main struct TestEntryPoint {
    static func main() async {
        if CommandLine.arguments.contains("--dump-tests-json") {
            FileHandle.standardError.write(
                Data(
                    """
                    error: authd's tests are Swift Testing tests, which this bundle runs without XCTest's list:
                    pick them with `scripts/test --filter NAME` (or `swift test --enable-swift-testing --disable-xctest --filter NAME`).

                    """.utf8
                )
            )
            exit(64)
        }
        await Testing.__swiftPMEntryPoint() as Never
    }
}
