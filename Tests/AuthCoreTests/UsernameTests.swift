import AuthCore
import Testing

@Suite struct UsernameTests {
    @Test func normalisesToNFCAndFoldsCaseForTheKey() throws {
        let decomposed = try Username("Ame\u{301}lie")
        let composed = try Username("AMÉLIE")
        #expect(decomposed.value == "Amélie")
        #expect(decomposed.value.unicodeScalars.count == 6)
        #expect(decomposed.key == composed.key)
    }

    @Test(arguments: [
        ("", "username must not be empty"),
        (String(repeating: "a", count: 65), "username must be at most 64 characters"),
        ("al\u{0}ice", "username must not contain control characters"),
        ("tab\tbed", "username must not contain control characters"),
        (" alice", "username must not start or end with white space"),
    ])
    func rejects(raw: String, message: String) {
        #expect(throws: AuthError.invalidRequest(message)) { try Username(raw) }
    }

    @Test func acceptsTheLongestName() throws {
        #expect(try Username(String(repeating: "é", count: 64)).value.count == 64)
    }

    /// RFC 8265 §3.3's width mapping: fullwidth and halfwidth forms are their ordinary
    /// letters, for the stored name and its key alike.
    @Test func fullwidthFormsAreTheirOrdinaryLetters() throws {
        #expect(try Username("ａｌｉｃｅ").key == "alice")
        #expect(try Username("ＡＬＩＣＥ").value == "ALICE")
        #expect(try Username("bob\u{3000}smith").value == "bob smith")
        #expect(try Username("ｱﾘｽ").value == "アリス")
        #expect(try Username("ｶﾞ").value == "ガ")
        #expect(try Username("Amélie").key == "amélie")
    }

    /// What a new name may not hold (PRECIS IdentifierClass): each refused with the character's code.
    @Test(arguments: [
        ("ali\u{200B}ce", "U+200B"), ("alice\u{202E}", "U+202E"), ("al\u{200D}ice", "U+200D"), ("\u{2066}alice", "U+2066"),
        ("ali\u{AD}ce", "U+00AD"), ("bob\u{A0}smith", "U+00A0"), ("ﬁona", "U+FB01"), ("ⓐlice", "U+24D0"), ("ℌelen", "U+210C"),
        ("x²", "U+00B2"), ("al\u{E000}ice", "U+E000"), ("al\u{0378}ice", "U+0378"), ("ali\u{180E}ce", "U+180E"),
    ])
    func aNewNameRefusesLookAlikeCharacters(raw: String, code: String) throws {
        #expect {
            try Username(raw).validateNew()
        } throws: { error in
            (error as? AuthError)?.code == .invalidRequest && (error as? AuthError)?.description.contains(code) == true
        }
    }

    @Test(arguments: ["alice", "Amélie", "bob smith", "jean-luc.o'neil", "アリス", "王小明", "ΑΘΗΝΑ", "Ümit_42", "ガ"])
    func ordinaryNamesAreAccepted(raw: String) throws {
        try Username(raw).validateNew()
    }
}

@Suite struct PasswordPolicyTests {
    @Test func presentedPasswordsNeedOnlyBeNonEmptyBoundedAndNULFree() throws {
        try PasswordPolicy.validatePresented("short")
        try PasswordPolicy.validatePresented(String(repeating: "x", count: 1024))
        #expect(throws: AuthError.invalidRequest("password must not be empty")) { try PasswordPolicy.validatePresented("") }
        #expect(throws: AuthError.invalidRequest("password must be at most 1024 characters")) {
            try PasswordPolicy.validatePresented(String(repeating: "x", count: 1025))
        }
        #expect(throws: AuthError.invalidRequest("password must not contain NUL characters")) {
            try PasswordPolicy.validatePresented("abc\u{0}defgh")
        }
    }

    @Test func newPasswordsNeedEightCharacters() throws {
        try PasswordPolicy.validateNew("12345678")
        try PasswordPolicy.validateNew("🔑🔑🔑🔑🔑🔑🔑🔑")
        #expect(throws: AuthError.weakPassword("password must be at least 8 characters")) { try PasswordPolicy.validateNew("1234567") }
    }
}
