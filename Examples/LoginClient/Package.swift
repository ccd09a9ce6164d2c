// swift-tools-version: 6.1
import PackageDescription

// An app-side client of authd's login, whose tests run against the stub that
// `contract verify` proves equal to authd.
let package = Package(
    name: "LoginClient",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoginClient", targets: ["LoginClient"])
    ],
    dependencies: [
        // Only the stub and its local server: none of the server's dependencies
        // (../../docs/05-testing-an-app-with-the-stub.md).
        .package(name: "authd", path: "../..", traits: ["StubServer"])
    ],
    targets: [
        .target(name: "LoginClient"),
        .testTarget(
            name: "LoginClientTests",
            dependencies: [
                "LoginClient",
                .product(name: "ContractStub", package: "authd"),
                .product(name: "ContractStubServer", package: "authd"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
