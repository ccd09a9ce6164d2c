// swift-tools-version: 6.1
import PackageDescription

// A client app that only fakes authd in its tests needs ContractStub (Foundation, Yams and
// swift-crypto) and perhaps ContractStubServer (Hummingbird), not the server. Every other
// dependency is linked through a trait: `Server`, on by default, enables them all; a
// package that depends on authd with `traits: []` resolves only Yams and swift-crypto (with
// swift-asn1), and with `traits: ["StubServer"]` Hummingbird's packages too
// (docs/05-testing-an-app-with-the-stub.md: "What a client resolves and builds"). A product
// a target uses without one of these conditions would pull every server dependency back
// into such a client's graph (scripts/check-client-dependencies fails then).

/// A dependency of authd itself, or of its command-line tools and tests' support.
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

/// A dependency of the stub's local server (`ContractStubServer`).
func stubServer(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["StubServer"]))
}

let package = Package(
    name: "authd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "authd", targets: ["authd"]),
        .executable(name: "contract", targets: ["contract"]),
        .library(name: "AuthCore", targets: ["AuthCore"]),
        .library(name: "AuthServer", targets: ["AuthServer"]),
        .library(name: "ContractKit", targets: ["ContractKit", "ContractMatching"]),
        .library(name: "ContractInterop", targets: ["ContractInterop"]),
        .library(name: "ContractRecording", targets: ["ContractRecording"]),
        .library(name: "ContractStub", targets: ["ContractStub"]),
        .library(name: "ContractStubServer", targets: ["ContractStubServer"]),
    ],
    traits: [
        .trait(name: "StubServer", description: "ContractStubServer: the stub on a local port (Hummingbird)."),
        .trait(
            name: "Server",
            description: "authd, the contract tool and every library beyond the stub (PostgreSQL, JWT, HTTP client, metrics).",
            enabledTraits: ["StubServer"]
        ),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // `contract import openapi`: without its default ExternalLoading trait (unused, and slower to build).
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
    ],
    targets: [
        // Argon2id: the reference implementation (P-H-C/phc-winner-argon2 at f57e61e, 2021;
        // CC0 or Apache-2.0, upstream/LICENSE) in upstream/ and include/argon2.h, unchanged,
        // with its SIMD block filling compiled for SSSE3 and AVX2 and picked at run time.
        // Lanes are filled one after the other on the caller's thread.
        .target(
            name: "CArgon2",
            exclude: ["upstream/ref.c", "upstream/opt.c", "upstream/LICENSE"],
            cSettings: [
                .define("ARGON2_NO_THREADS"),
                // Optimised in debug builds too: unoptimised, one verification takes half a
                // second, and `scripts/serve` and the tests run debug builds.
                .unsafeFlags(["-O2"], .when(configuration: .debug)),
            ]
        ),
        // libsodium: an independent Argon2id that tests and HashBenchmark check ours against.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        // Base64url, the compact JWS, constant-time comparison and secure random bytes: what
        // authd's tokens, the contract matchers and the stub share.
        .target(name: "JOSE", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // application/x-www-form-urlencoded and HTTP Basic credentials (Foundation only): how
        // authd's OAuth routes read their bodies and clients, and how the contract verifier
        // writes forms and the matchers and stub read them.
        .target(name: "WebForms"),
        // WebAuthn's relying-party side (CBOR, COSE keys, attestation and assertion checks, the
        // options and responses' JSON) and a software authenticator: what authd, the contract
        // verifier (acting as the authenticator) and the stub share. Foundation and swift-crypto
        // only (_CryptoExtras for RS256 keys).
        .target(
            name: "WebAuthn",
            dependencies: [
                "JOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "AuthCore",
            dependencies: [
                "CArgon2",
                "JOSE",
                "WebAuthn",
                "WebForms",
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for ID tokens, the algorithm OpenID Connect clients accept by default.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                server("Logging", "swift-log"),
                server("CoreMetrics", "swift-metrics"),
            ],
            // The built-in blocklist of the 10,000 most common passwords (zxcvbn's, MIT; its
            // source and licence in the note beside it).
            exclude: ["Passwords/common-passwords.LICENSE.md"],
            resources: [.embedInCode("Passwords/common-passwords.txt")]
        ),
        .target(name: "ProcessKit"),
        .target(
            name: "AuthPostgres",
            dependencies: [
                "AuthCore",
                server("PostgresNIO", "postgres-nio"),
                // ConnectionPoolError: what a pool that cannot connect, or was replaced, throws.
                server("_ConnectionPoolModule", "postgres-nio"),
                server("NIOSSL", "swift-nio-ssl"),
                server("NIOCore", "swift-nio"),
                server("Logging", "swift-log"),
            ],
            // `migrations` is a link to the top-level migrations/ folder: the SQL lives there
            // and is embedded in the binary from here (MigrationTests checks the two agree).
            resources: [.embedInCode("migrations")]
        ),
        // The private PostgreSQL cluster of `authd serve`'s default and of the tests.
        .target(
            name: "PostgresEmbedded",
            dependencies: [
                "ProcessKit",
                server("PostgresNIO", "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                server("Logging", "swift-log"),
            ]
        ),
        .target(
            name: "AuthServer",
            dependencies: [
                "AuthCore",
                "JOSE",
                "WebAuthn",
                "WebForms",
                .product(name: "Crypto", package: "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
                server("Hummingbird", "hummingbird"),
                server("HummingbirdCore", "hummingbird"),
                server("HummingbirdTLS", "hummingbird"),
                // The pages' templates (Web/Templates).
                server("Mustache", "swift-mustache"),
                // TOTP codes and key URIs (SecondFactors/HummingbirdTOTP).
                server("HummingbirdOTP", "hummingbird-auth"),
                server("ExtrasBase64", "swift-extras-base64"),
                server("NIOSSL", "swift-nio-ssl"),
                server("Prometheus", "swift-prometheus"),
                server("CoreMetrics", "swift-metrics"),
                server("HTTPTypes", "swift-http-types"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOHTTPTypes", "swift-nio-extras"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Logging", "swift-log"),
            ],
            // The OpenAPI document exported from contracts/ by scripts/openapi, served at
            // GET /openapi.json; the pages' templates and their words in each language.
            resources: [.embedInCode("Operations/openapi.json"), .embedInCode("Web/Templates"), .embedInCode("Web/Messages")]
        ),
        .executableTarget(
            name: "authd",
            dependencies: [
                "AuthCore",
                "JOSE",
                "WebAuthn",
                "AuthPostgres",
                "AuthServer",
                "PostgresEmbedded",
                server("ArgumentParser", "swift-argument-parser"),
                server("Hummingbird", "hummingbird"),
                server("NIOSSL", "swift-nio-ssl"),
                server("PostgresNIO", "postgres-nio"),
                server("Logging", "swift-log"),
            ]
        ),
        // Matchers: JSON values and the kinds of matcher, one file each (swift-crypto for the TOTP
        // codes of `totp` matchers, WebAuthn for the credentials of `webauthn_…` ones) ...
        .target(
            name: "ContractMatching",
            dependencies: ["JOSE", "WebAuthn", "WebForms", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // ... contracts: the model and the YAML format (with the matchers, what the stub needs) ...
        .target(
            name: "ContractKit",
            dependencies: ["ContractMatching", "JOSE", "WebAuthn", "WebForms", .product(name: "Yams", package: "Yams")]
        ),
        // ... how contracts change: diff, and can-i-deploy against clients' recorded usage ...
        .target(name: "ContractEvolution", dependencies: ["ContractKit"]),
        // ... Pact and OpenAPI in and out ...
        .target(
            name: "ContractInterop",
            dependencies: [
                "ContractKit",
                "JOSE",
                .product(name: "Yams", package: "Yams"),
                // Reading OpenAPI 3.1/3.2 documents, and 3.0 ones converted to 3.1's model.
                server("OpenAPIKit", "OpenAPIKit"),
                server("OpenAPIKit30", "OpenAPIKit"),
                server("OpenAPIKitCompat", "OpenAPIKit"),
            ]
        ),
        // ... and contracts written from recorded traffic.
        .target(name: "ContractRecording", dependencies: ["ContractKit"]),
        .target(
            name: "ContractStub",
            dependencies: ["ContractKit", "JOSE", "WebAuthn", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "ContractStubServer",
            dependencies: [
                "ContractKit",
                "ContractStub",
                stubServer("Hummingbird", "hummingbird"),
                stubServer("HTTPTypes", "swift-http-types"),
                stubServer("NIOCore", "swift-nio"),
                stubServer("Logging", "swift-log"),
                stubServer("ServiceLifecycle", "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "ContractRunner",
            dependencies: [
                "ContractKit",
                "ContractInterop",
                "ContractStub",
                "JOSE",
                "ProcessKit",
                "WebForms",
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOPosix", "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "contract",
            dependencies: [
                "ContractKit",
                "ContractEvolution",
                "ContractInterop",
                "ContractRecording",
                "ContractRunner",
                "ContractStub",
                "ContractStubServer",
                server("ArgumentParser", "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ContractRunnerBenchmark",
            dependencies: [
                "ContractKit",
                "ContractRunner",
                "ContractTestSupport",
                server("Hummingbird", "hummingbird"),
                server("NIOCore", "swift-nio"),
            ],
            path: "Benchmarks/ContractRunnerBenchmark"
        ),
        .executableTarget(
            name: "HashBenchmark",
            dependencies: ["AuthCore", "CArgon2", "CSodium"],
            path: "Benchmarks/HashBenchmark"
        ),
        .executableTarget(
            name: "SigningBenchmark",
            dependencies: ["AuthCore"],
            path: "Benchmarks/SigningBenchmark"
        ),
        .executableTarget(
            name: "ContractStubBenchmark",
            dependencies: ["ContractKit", "ContractStub", "ContractStubServer", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/ContractStubBenchmark"
        ),
        .target(
            name: "AuthTestSupport",
            dependencies: [
                "AuthCore",
                "AuthPostgres",
                "PostgresEmbedded",
                "ProcessKit",
                server("PostgresNIO", "postgres-nio"),
                server("Logging", "swift-log"),
            ]
        ),
        // Fixtures shared by the contract tests: a toy provider and its contract, tools from PyPI.
        .target(
            name: "ContractTestSupport",
            dependencies: [
                "ContractKit",
                "ContractStubServer",
                "JOSE",
                "ProcessKit",
                "WebAuthn",
                server("Hummingbird", "hummingbird"),
                server("Logging", "swift-log"),
                server("NIOCore", "swift-nio"),
            ]
        ),
        .testTarget(name: "JOSETests", dependencies: ["JOSE"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["JOSE", "WebAuthn", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "AuthCoreTests",
            dependencies: [
                "JOSE", "AuthCore", "AuthPostgres", "AuthTestSupport", "CArgon2", "CSodium", "ProcessKit",
                .product(name: "Crypto", package: "swift-crypto"),
                // The services' tests read back what they stored (PostgresStorage+Inspection).
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "AuthPostgresTests",
            dependencies: [
                "AuthCore",
                "AuthPostgres",
                "AuthTestSupport",
                "PostgresEmbedded",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AuthServerTests",
            dependencies: [
                "JOSE", "AuthCore",
                "AuthPostgres",
                "AuthServer",
                "AuthTestSupport",
                // The test identity provider reads its token and revocation forms.
                "WebForms",
                "ContractKit",
                "ContractInterop",
                "ContractTestSupport",
                "PostgresEmbedded",
                // The delivery transport's client, shut down by the tests that make one.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The test identity provider's RS256 key.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // The example in docs/03-http-api.md of a Swift resource server validating authd's tokens.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // ConnectionCapTests run the server without a test client of its own.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // ConnectionCapTrimTests drive the cap with channels of their own.
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ContractKitTests",
            dependencies: ["ContractKit", "ContractEvolution", "ContractTestSupport", "JOSE", "ProcessKit", "WebAuthn"]
        ),
        .testTarget(
            name: "ContractInteropTests",
            dependencies: ["JOSE", "ContractKit", "ContractInterop"]
        ),
        .testTarget(
            name: "ContractRecordingTests",
            dependencies: ["ContractKit", "ContractRecording", "ContractRunner", "ContractStub", "JOSE", "ProcessKit"]
        ),
        // The code of ContractStub's DocC tutorial (ContractStub.docc/Resources links to it),
        // compiled and run here.
        .testTarget(name: "ContractStubTutorialTests", dependencies: ["ContractStub"]),
        .testTarget(
            name: "ContractStubTests",
            dependencies: [
                "JOSE", "ContractKit", "ContractEvolution", "ContractRunner", "ContractStub", "ContractStubServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ContractRunnerTests",
            dependencies: [
                "ContractKit",
                "ProcessKit",
                "ContractStub",
                "ContractRunner",
                "ContractTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "contractTests",
            dependencies: ["contract", "authd", "AuthCore", "ContractRunner", "ProcessKit", "ContractTestSupport"]
        ),
        .testTarget(
            name: "authdTests",
            dependencies: [
                "JOSE", "authd", "AuthCore", "AuthPostgres", "AuthTestSupport", "ContractTestSupport", "PostgresEmbedded", "ProcessKit",
                // BrowserPageTests fix authd's port (and so its public URL) beforehand.
                "ContractRunner",
                // The example client's browser sign-in, against a live authd.
                "LoginClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The example client (Examples/LoginClient is a package of its own, to copy) is built
        // and tested here too, so the test suite compiles the dependencies once.
        .target(
            name: "LoginClient",
            dependencies: [.product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")],
            path: "Examples/LoginClient/Sources/LoginClient"
        ),
        .testTarget(
            name: "LoginClientTests",
            dependencies: ["LoginClient", "ContractStub", "ContractStubServer"],
            path: "Examples/LoginClient/Tests/LoginClientTests",
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The DocC catalogs' builder (scripts/docs sets AUTHD_DOCC=1): out of the graph otherwise, so
// that an app depending on the stub does not resolve it.
if Context.environment["AUTHD_DOCC"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"))
}
