// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "authd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "authd", targets: ["authd"]),
        .executable(name: "contract", targets: ["contract"]),
        .library(name: "AuthCore", targets: ["AuthCore"]),
        .library(name: "AuthServer", targets: ["AuthServer"]),
        .library(name: "ContractKit", targets: ["ContractKit"]),
        .library(name: "ContractStub", targets: ["ContractStub"]),
        .library(name: "ContractStubServer", targets: ["ContractStubServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]
        ),
        .target(
            name: "AuthCore",
            dependencies: [
                "CArgon2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "ProcessKit"),
        .target(
            name: "AuthPostgres",
            dependencies: [
                "AuthCore",
                "ProcessKit",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.embedInCode("migrations")]
        ),
        .target(
            name: "AuthServer",
            dependencies: [
                "AuthCore",
                "AuthPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "authd",
            dependencies: [
                "AuthCore",
                "AuthPostgres",
                "AuthServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ContractKit",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "ContractStub",
            dependencies: ["ContractKit", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "ContractStubServer",
            dependencies: [
                "ContractKit",
                "ContractStub",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ContractRunner",
            dependencies: [
                "ContractKit",
                "ContractStub",
                "ProcessKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .executableTarget(
            name: "contract",
            dependencies: [
                "ContractKit",
                "ContractRunner",
                "ContractStub",
                "ContractStubServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ContractRunnerBenchmark",
            dependencies: [
                "ContractKit",
                "ContractRunner",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ContractRunnerBenchmark"
        ),
        .executableTarget(
            name: "ContractStubBenchmark",
            dependencies: ["ContractKit", "ContractStub", "ContractStubServer"],
            path: "Benchmarks/ContractStubBenchmark"
        ),
        .target(
            name: "AuthTestSupport",
            dependencies: [
                "AuthCore",
                "AuthPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AuthCoreTests",
            dependencies: ["AuthCore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "AuthPostgresTests",
            dependencies: ["AuthPostgres", "AuthTestSupport"]
        ),
        .testTarget(
            name: "AuthServerTests",
            dependencies: [
                "AuthServer",
                "AuthTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "ContractKitTests",
            dependencies: ["ContractKit"]
        ),
        .testTarget(
            name: "ContractStubTests",
            dependencies: [
                "ContractKit", "ContractStub", "ContractStubServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ContractRunnerTests",
            dependencies: [
                "ContractKit",
                "ContractStub",
                "ContractRunner",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "contractTests",
            dependencies: ["contract", "authd", "ProcessKit"]
        ),
        .testTarget(
            name: "authdTests",
            dependencies: ["authd", "AuthPostgres", "AuthTestSupport", "ProcessKit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
