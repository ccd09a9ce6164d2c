import ContractKit
import Testing

/// Header names compare as HTTP compares them: ASCII letters without regard to case, and
/// nothing else folded.
@Suite struct HeaderNameTests {
    let request = ContractRequest(
        method: "GET", target: "/", headers: [("Content-Type", "application/json"), ("X-Trace@1", "a"), ("X-Trace[", "b")]
    )

    @Test(arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
    func findsAHeaderWhateverTheCaseOfItsLetters(name: String) {
        #expect(request.header(name) == "application/json")
    }

    /// `@` and `` ` `` differ by the bit that tells an ASCII letter's cases apart, as do `[`
    /// and `{`: only letters are folded.
    @Test func foldsOnlyLetters() {
        #expect(request.header("x-trace@1") == "a")
        #expect(request.header("X-Trace`1") == nil)
        #expect(request.header("X-Trace{") == nil)
        #expect(request.header("Content-Typ") == nil)
        #expect(request.header("Content-Types") == nil)
    }
}
