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
