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
        .package(name: "authd", path: "../..", traits: ["StubServer"]),
        // PKCE's SHA-256 and the ID token's signature (RS256 by default) for the browser
        // sign-in; the stub resolves it already.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .target(
            name: "LoginClient",
            dependencies: [.product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
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
