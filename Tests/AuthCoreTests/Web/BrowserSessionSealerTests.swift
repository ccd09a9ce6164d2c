import AuthCore
import Foundation
import JOSE
import Testing

/// The browser session in its cookie: opened only as sealed, by the same KEK, before it ends.
@Suite struct BrowserSessionSealerTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSealedSessionOpensAsItWasAndHidesItsToken() throws {
        let kek = KeyEncryptionKey.generate()
        var session = BrowserSession.start(now: now)
        session.pending = .init(purpose: .passwordReset, token: "the-token-of-an-emailed-link-0123456789abcdef")
        let sealed = try BrowserSessionSealer(keyEncryptionKey: kek).seal(session)
        #expect(!sealed.contains("the-token"))
        // Another instance sharing the KEK opens it.
        #expect(BrowserSessionSealer(keyEncryptionKey: kek).open(sealed, now: now) == session)
        #expect(session.pendingToken(for: [.passwordReset]) == "the-token-of-an-emailed-link-0123456789abcdef")
        #expect(session.pendingToken(for: [.emailVerification, .emailChange]) == nil)
    }

    @Test func aChangedForeignExpiredOrHugeValueOpensAsNoSession() throws {
        let kek = KeyEncryptionKey.generate()
        let sealer = BrowserSessionSealer(keyEncryptionKey: kek)
        let sealed = try sealer.seal(BrowserSession.start(now: now))
        var bytes = try #require(Base64URL.decode(sealed))
        bytes[bytes.count / 2] ^= 1
        #expect(sealer.open(Base64URL.encode(bytes), now: now) == nil)
        #expect(BrowserSessionSealer(keyEncryptionKey: .generate()).open(sealed, now: now) == nil)
        #expect(sealer.open(sealed, now: now.addingTimeInterval(BrowserSession.lifetime)) == nil)
        #expect(sealer.open(sealed, now: now.addingTimeInterval(BrowserSession.lifetime - 1)) != nil)
        #expect(sealer.open(String(repeating: "A", count: BrowserSessionSealer.maxSealedLength + 1), now: now) == nil)
        #expect(sealer.open("not base64url!", now: now) == nil)
    }

    @Test func onlyTheSessionsOwnAntiForgeryTokenIsAccepted() {
        let session = BrowserSession.start(now: now)
        #expect(session.acceptsForm(csrfToken: session.csrfToken))
        #expect(!session.acceptsForm(csrfToken: nil))
        #expect(!session.acceptsForm(csrfToken: ""))
        #expect(!session.acceptsForm(csrfToken: BrowserSession.start(now: now).csrfToken))
        #expect(session.csrfToken.count == 43 && session.id.count == 22)
    }
}
