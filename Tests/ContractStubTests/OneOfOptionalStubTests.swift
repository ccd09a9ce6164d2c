import ContractKit
import ContractStub
import Foundation
import Testing

/// The stub with `one_of` and optional keys: requests with or without the key, with any
/// alternative, fit; answers hold the first alternative and the optional keys.
@Suite struct OneOfOptionalStubTests {
    static let contract = """
        name: Profile
        interactions:
          - name: a profile is saved
            request:
              method: PUT
              path: /profile
              json:
                name: { match: string, min_length: 1 }
                nickname: { match: string, optional: true }
                theme: { match: one_of, of: [light, dark, { match: null }] }
            response:
              status: 200
              json:
                status: { match: one_of, of: [saved, unchanged] }
                nickname: { match: string, example: al, optional: true }
        """

    static func put(_ json: String) -> ContractRequest {
        ContractRequest(method: "PUT", target: "/profile", headers: [("Content-Type", "application/json")], body: Data(json.utf8))
    }

    @Test(arguments: [
        #"{"name":"Al","theme":"light"}"#,
        #"{"name":"Al","nickname":"al","theme":"dark"}"#,
        #"{"name":"Al","theme":null}"#,
    ])
    func requestsWithOrWithoutTheKeyAndAnyAlternativeFit(body: String) throws {
        let stub = try ContractStub(contracts: [loadContract(Self.contract)])
        let response = stub.respond(to: Self.put(body))
        #expect(response.status == 200)
        #expect(response.json == ["status": "saved", "nickname": "al"])
    }

    @Test(arguments: [
        (#"{"name":"Al","theme":"blue"}"#, "theme"),
        (#"{"name":"Al","nickname":7,"theme":"dark"}"#, "nickname"),
        (#"{"nickname":"al","theme":"dark"}"#, "name"),
    ])
    func whatNoAlternativeOrKeyAllowsIsRefused(body: String, named: String) throws {
        let stub = try ContractStub(contracts: [loadContract(Self.contract)])
        #expect(stub.respond(to: Self.put(body)).status == 501)
        #expect(stub.unmatched.first?.difference.contains(named) == true)
    }
}
