import ContractKit
import ContractRunner
import Foundation
import Testing

@Suite struct ProviderEnvironmentTests {
    @Test func aScratchFolderPerRunRemovedAfterwards() async throws {
        let environment = try await ProviderEnvironment.prepare(nil, contractsDirectory: ".")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: environment.scratch.path, isDirectory: &isFolder) && isFolder.boolValue)
        #expect(environment.variables["scratch"] == .string(environment.scratch.path))
        #expect(environment.variables(port: 4242)["port"] == .string("4242"))
        #expect(environment.variables["env.PATH"] != nil)
        let other = try await ProviderEnvironment.prepare(nil, contractsDirectory: ".")
        #expect(other.scratch != environment.scratch)
        environment.remove()
        other.remove()
        #expect(!FileManager.default.fileExists(atPath: environment.scratch.path))
    }

    @Test func prebuiltProductsComeFromTheFolderGiven() async throws {
        let configuration = ProviderConfiguration(
            command: nil, ready: "/", baseURL: nil, startupTimeout: 1, states: [:], swiftProducts: ["sh"])
        let environment = try await ProviderEnvironment.prepare(configuration, contractsDirectory: ".", products: .prebuilt(folder: "/bin"))
        defer { environment.remove() }
        #expect(environment.variables["bin.sh"] == .string("/bin/sh"))

        await #expect {
            _ = try await ProviderEnvironment.prepare(configuration, contractsDirectory: ".", products: .prebuilt(folder: "/nonexistent"))
        } throws: { error in
            "\(error)".contains("sh is not built in /nonexistent")
        }
    }

    @Test func noPackageAboveTheContractsIsAClearError() async throws {
        let configuration = ProviderConfiguration(
            command: nil, ready: "/", baseURL: nil, startupTimeout: 1, states: [:], swiftProducts: ["authd"])
        await #expect {
            _ = try await ProviderEnvironment.prepare(configuration, contractsDirectory: "/tmp", products: .build)
        } throws: { error in
            "\(error)".contains("no Package.swift in /tmp or above it")
        }
    }
}
