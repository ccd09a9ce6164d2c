import ContractEvolution
import ContractKit
import Testing

@Suite struct MatcherBreadthTests {
    static let string = Matcher(.string(minLength: nil, maxLength: nil))

    @Test(
        arguments: [
            // (old, new, breadth of new against old)
            (Matcher.literal("Bearer"), string, MatcherBreadth.wider),
            (Matcher.literal("Bearer"), Matcher(.regex("Bearer|Basic")), .wider),
            (Matcher.literal("Bearer"), Matcher(.uuid), .different),
            (Matcher.literal("Bearer"), Matcher.literal("Basic"), .different),
            (Matcher(.uuid), string, .wider),
            (string, Matcher(.datetime), .narrower),
            (string, Matcher(.jwt(claims: [:])), .narrower),
            (Matcher(.uuid), Matcher(.regex("[0-9a-f-]+")), .different),
            (Matcher(.regex("a+")), Matcher(.regex("a*")), .different),
            (string, Matcher(.any), .wider),
            (Matcher(.any), Matcher(.boolean), .narrower),
            (Matcher(.integer(min: 1, max: nil)), Matcher(.number(min: nil, max: nil)), .wider),
            (Matcher(.number(min: 0, max: 10)), Matcher(.integer(min: 1, max: 5)), .narrower),
            (Matcher(.number(min: 0, max: 10)), Matcher(.integer(min: -1, max: 5)), .different),
            (Matcher(.integer(min: 1, max: 10)), Matcher(.integer(min: 1, max: 10)), .same),
            (Matcher(.integer(min: 1, max: 10)), Matcher(.integer(min: 0, max: 10)), .wider),
            (Matcher(.integer(min: 1, max: 10)), Matcher(.integer(min: 1, max: nil)), .wider),
            (Matcher(.integer(min: 1, max: 10)), Matcher(.integer(min: 2, max: 11)), .different),
            (Matcher(.string(minLength: nil, maxLength: 10)), Matcher(.string(minLength: 1, maxLength: 10)), .narrower),
            (Matcher.literal(.integer(900)), Matcher(.integer(min: 1, max: nil)), .wider),
            (Matcher(.integer(min: 1, max: nil)), Matcher.literal(.integer(0)), .different),
            (Matcher(.each(of: string, min: nil, max: nil)), Matcher(.each(of: Matcher(.uuid), min: 1, max: nil)), .narrower),
            (Matcher(.each(of: string, min: 1, max: nil)), Matcher(.each(of: Matcher(.uuid), min: nil, max: nil)), .different),
            (Matcher.literal(["a": 1]), Matcher.literal(["a": 1, "b": 2]), .narrower),
            (Matcher(.jwt(claims: ["sub": Matcher(.uuid)])), Matcher(.jwt(claims: [:])), .wider),
        ] as [(Matcher, Matcher, MatcherBreadth)])
    func comparesByInclusion(old: Matcher, new: Matcher, expected: MatcherBreadth) {
        #expect(MatcherBreadth(old: old, new: new) == expected)
        #expect(MatcherBreadth(old: new, new: old) == expected.reversed)
    }

    @Test func examplesAreNotCompared() {
        #expect(MatcherBreadth(old: Matcher(.uuid, example: "a"), new: Matcher(.uuid)) == .same)
    }

    @Test func partsCombineTheSameWayOrDiffer() {
        #expect(MatcherBreadth.same.combined(with: .wider) == .wider)
        #expect(MatcherBreadth.narrower.combined(with: .narrower) == .narrower)
        #expect(MatcherBreadth.narrower.combined(with: .wider) == .different)
    }
}
