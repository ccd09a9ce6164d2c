import AuthCore
import CArgon2
import Testing

@Suite struct Argon2idHasherTests {
    let light = Argon2idHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1))

    @Test func hashesToAPHCStringThatVerifies() throws {
        let phc = try light.hash("correct horse battery staple")
        #expect(phc.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(light.verify("correct horse battery staple", against: phc))
        #expect(!light.verify("correct horse battery stapler", against: phc))
    }

    @Test func saltsEveryHash() throws {
        #expect(try light.hash("same password") != light.hash("same password"))
    }

    @Test func defaultsAreOWASP() throws {
        let phc = try Argon2idHasher().hash("correct horse battery staple")
        #expect(Argon2idHasher.parameters(of: phc) == .init(memoryKiB: 19_456, iterations: 2, parallelism: 1))
        #expect(!Argon2idHasher().needsRehash(phc))
    }

    @Test func weakerParametersNeedARehash() throws {
        let phc = try light.hash("correct horse battery staple")
        #expect(Argon2idHasher().needsRehash(phc))
        #expect(!light.needsRehash(phc))
        #expect(Argon2idHasher().needsRehash("$2b$12$bcrypt.hash.from.elsewhere"))
        // Fewer passes alone, or less memory alone, is weaker.
        #expect(Argon2idHasher().needsRehash("$argon2id$v=19$m=65536,t=1,p=1$c2FsdHNhbHQ$aGFzaA"))
        #expect(Argon2idHasher().needsRehash("$argon2id$v=19$m=8192,t=4,p=1$c2FsdHNhbHQ$aGFzaA"))
    }

    @Test func strongerParametersAreNeverDowngraded() throws {
        let strong = Argon2idHasher(parameters: .init(memoryKiB: 2048, iterations: 2, parallelism: 2))
        let phc = try strong.hash("correct horse battery staple")
        #expect(!light.needsRehash(phc))
        #expect(!Argon2idHasher().needsRehash("$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaA"))
        #expect(!Argon2idHasher().needsRehash("$argon2id$v=19$m=19456,t=2,p=4$c2FsdHNhbHQ$aGFzaA"))
    }

    @Test(arguments: ["", "plain", "$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA", "$argon2id$v=19$m=x,t=1,p=1$a$b"])
    func malformedHashesNeverMatch(phc: String) {
        #expect(!light.verify("anything", against: phc))
    }

    @Test func passwordsWithUnicodeAndNULSurviveTheCBoundary() throws {
        let phc = try light.hash("pässwörd\u{0}tail")
        #expect(light.verify("pässwörd\u{0}tail", against: phc))
        #expect(!light.verify("pässwörd", against: phc))
    }

    /// A hash made by the reference library with a fixed salt, before authd moved to
    /// libsodium: stored hashes like it must keep verifying.
    @Test func verifiesAKnownHashFromTheReferenceLibrary() {
        let known = "$argon2id$v=19$m=19456,t=2,p=1$AQIDBAUGBwgJCgsMDQ4PEA$u7HkQc8NFEyI1fGa9gfr7DIUnvi/UM/saRdXcmsbkMA"
        #expect(Argon2idHasher().verify("correct horse battery staple", against: known))
        #expect(!Argon2idHasher().verify("correct horse battery stapler", against: known))
    }

    @Test func referenceHashesVerifyHereAndOursVerifyInTheReferenceLibrary() throws {
        let password = Array("correct horse battery staple".utf8)
        let salt = Array("sixteen byte slt".utf8)
        var reference = [CChar](repeating: 0, count: 128)
        let made = argon2id_hash_encoded(1, 1024, 1, password, password.count, salt, salt.count, 32, &reference, reference.count)
        #expect(made == ARGON2_OK.rawValue)
        #expect(light.verify("correct horse battery staple", against: String(decoding: reference.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))

        let ours = try light.hash("correct horse battery staple")
        #expect(argon2id_verify(ours, password, password.count) == ARGON2_OK.rawValue)
        #expect(argon2id_verify(ours, Array("wrong".utf8), 5) != ARGON2_OK.rawValue)
    }

    @Test func hashesWithSeveralLanesAreMadeAndVerified() throws {
        let lanes = Argon2idHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 4))
        let phc = try lanes.hash("correct horse battery staple")
        #expect(phc.hasPrefix("$argon2id$v=19$m=1024,t=1,p=4$"))
        #expect(lanes.verify("correct horse battery staple", against: phc))
        #expect(light.verify("correct horse battery staple", against: phc))
        #expect(!lanes.verify("correct horse battery stapler", against: phc))
    }
}
