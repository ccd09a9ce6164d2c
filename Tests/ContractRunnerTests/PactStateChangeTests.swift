import ContractKit
import ContractRunner
import ContractTestSupport
import Foundation
import Testing

/// The state-change URL `contract pact-states` serves to the Pact verifier.
@Suite struct PactStateChangeTests {
    func post(_ handler: PactStateChange, _ body: String) async -> (status: Int, json: JSONValue?) {
        let response = await handler.respond(
            to: ContractRequest(
                method: "POST", target: "/", headers: [(name: "Content-Type", value: "application/json")], body: Data(body.utf8)))
        #expect(response.header("content-type") == "application/json")
        return (response.status, try? JSONValue(parsing: response.body))
    }

    func handler(_ url: String) throws -> PactStateChange {
        PactStateChange(
            contracts: [try loadContract(ToyProvider.contract)], verifier: ContractVerifier(live: HTTPTransport(baseURL: url), states: nil))
    }

    @Test func savedValuesComeFromReplayingTheInteractionsBefore() async throws {
        try await ToyProvider.withRunning { url in
            let handler = try handler(url)
            let answer = await post(
                handler,
                #"{"state": "values saved by earlier interactions", "params": {"contract": "Toy", "interaction": "the token opens /me"}, "action": "setup"}"#
            )
            #expect(answer.status == 200)
            #expect(answer.json == ["token": "tok-123"])
            // The first interaction has nothing before it and uses nothing.
            let first = await post(
                handler,
                #"{"state": "values saved by earlier interactions", "params": {"contract": "Toy", "interaction": "login gives a token"}}"#)
            #expect(first.status == 200)
            #expect(first.json == [:])
        }
    }

    @Test func noStateAndTeardownsAreAnsweredWithNothing() async throws {
        let handler = try handler("http://127.0.0.1:1")
        #expect(await post(handler, #"{"state": "", "params": {}, "action": "setup"}"#).json == [:])
        #expect(await post(handler, #"{"state": "user exists", "params": {}, "action": "teardown"}"#).json == [:])
        #expect(await post(handler, #"{"state": "user exists", "action": "teardown"}"#).status == 200)
    }

    @Test func whatCannotBeSetUpIsA500SayingWhy() async throws {
        try await ToyProvider.withRunning(tokenType: "bearer") { url in
            let handler = try handler(url)
            let unknown = await post(handler, #"{"state": "user exists", "params": {"username": "alice"}, "action": "setup"}"#)
            #expect(unknown.status == 500)
            #expect(unknown.json == ["error": "provider state 'user exists' is needed but contract.yaml defines no states"])

            let missing = await post(
                handler, #"{"state": "values saved by earlier interactions", "params": {"contract": "Toy", "interaction": "nothing"}}"#)
            #expect(missing.json == ["error": "contract 'Toy' has no interaction 'nothing'"])

            // The provider broke the first interaction, so the second's values are not trusted.
            let broken = await post(
                handler,
                #"{"state": "values saved by earlier interactions", "params": {"contract": "Toy", "interaction": "the token opens /me"}}"#)
            #expect(broken.status == 500)
            #expect(
                broken.json == [
                    "error": #"replaying 'login gives a token' broke its contract: $.token_type: expected "Bearer", got string "bearer""#
                ])
        }
    }

    @Test func aRequestThatIsNotAStateChangeIsA400() async throws {
        let handler = try handler("http://127.0.0.1:1")
        let answer = await post(handler, "state=x")
        #expect(answer.status == 400)
        #expect(answer.json == ["error": #"POST a JSON object {"state", "params", "action"}"#])
    }
}
