import AuthCore
import AuthTestSupport
import Foundation
import ProcessKit
import Testing

/// The built-in blocklist: what it holds and how it is compared.
@Suite struct CommonPasswordsTests {
    @Test func holdsTheTenThousandMostCommonInRankOrder() {
        #expect(CommonPasswords.ranked.count == 10_000)
        #expect(Set(CommonPasswords.ranked).count == 10_000)
        #expect(CommonPasswords.ranked.prefix(3) == ["123456", "password", "12345678"])
        #expect(CommonPasswords.ranked.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty })
    }

    @Test func comparesCaseInsensitively() {
        for password in ["qwertyuiop", "QWERTYUIOP", "QwErTyUiOp", "Password1", "iloveyou"] {
            #expect(CommonPasswords.contains(password), "\(password)")
        }
        #expect(!CommonPasswords.contains("correct horse battery staple"))
        #expect(!CommonPasswords.contains("qwertyuiop!"))
    }
}

/// The one policy of a password being set: length, common list, optional breached list.
@Suite struct PasswordScreenTests {
    static let common = AuthError.weakPassword("password is one of the 10,000 most common passwords")
    static let breached = AuthError.weakPassword("password appears in a list of breached passwords")

    @Test(arguments: ["password", "12345678", "qwertyuiop", "QWERTYUIOP", "Passw0rd", "baseball", "1qaz2wsx"])
    func refusesCommonPasswordsSayingWhyWithoutEchoingThem(password: String) {
        let error = #expect(throws: Self.common) { try PasswordScreen().screened(password) }
        // "password" is a word of the message itself; no other password appears in it.
        #expect(password == "password" || !(error?.description.lowercased().contains(password.lowercased()) ?? true))
    }

    /// Runs no list holds in full: one short block repeated, or characters each one step
    /// from the last, up or down.
    @Test(arguments: ["zzzzzzzzzz", "XyXyXyXyXy", "q1wq1wq1wq1w", "bcdefghijk", "ZYXWVUTSRQ", "3456789:", "98765432"])
    func refusesRepetitiveAndSequentialRuns(password: String) {
        #expect(!CommonPasswords.contains(password), "the list must not be what refuses it")
        #expect(throws: AuthError.weakPassword("password is a repeated or sequential run of characters")) {
            try PasswordScreen().screened(password)
        }
    }

    @Test(arguments: ["correct horse battery staple", "abcdefgz", "zzzzzzzy", "q1wq1wq1wq1x", "13579bdf"])
    func passesWhatIsNeitherRepeatedNorARun(password: String) throws {
        #expect(!PasswordScreen.isRepetitiveOrSequential(password))
    }

    @Test func refusesShortPasswordsAndPassesStrongOnesNormalised() throws {
        #expect(throws: AuthError.weakPassword("password must be at least 8 characters")) { try PasswordScreen().screened("Zx9!kq") }
        #expect(try PasswordScreen().screened("correct horse battery staple") == "correct horse battery staple")
        // Normalised (RFC 8265): a no-break space becomes a space, NFD becomes NFC.
        let screened = try PasswordScreen().screened("cafe\u{301}\u{A0}au lait")
        #expect(screened.unicodeScalars.elementsEqual("caf\u{E9} au lait".unicodeScalars))
    }

    @Test func refusesABreachedPasswordOnlyWhenAListIsGiven() throws {
        let leaked = "a leaked passphrase"
        let folder = try TemporaryFolder(
            "breached", files: ["pwned.txt": TestBreachedPasswords.text(breached: [leaked, "caf\u{E9} au lait"], filler: 2000)])
        defer { folder.remove() }
        let screen = PasswordScreen(breached: try BreachedPasswordList(path: folder.appending("pwned.txt").path))

        #expect(try PasswordScreen().screened(leaked) == leaked)
        #expect(throws: Self.breached) { try screen.screened(leaked) }
        #expect(try screen.screened("correct horse battery staple") == "correct horse battery staple")
        // The common list comes first, and still applies.
        #expect(throws: Self.common) { try screen.screened("qwertyuiop") }
        // Looked up as normalised: the NFD spelling of a breached NFC password is refused.
        #expect(throws: Self.breached) { try screen.screened("cafe\u{301} au lait") }
    }
}
