import AuthCore
import CArgon2
import CSodium
import Foundation
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

    /// A hash made by Debian's libargon2 with a fixed salt, when authd linked it: stored
    /// hashes like it must keep verifying.
    @Test func verifiesAKnownHashFromDebiansLibrary() {
        let known = "$argon2id$v=19$m=19456,t=2,p=1$AQIDBAUGBwgJCgsMDQ4PEA$u7HkQc8NFEyI1fGa9gfr7DIUnvi/UM/saRdXcmsbkMA"
        #expect(Argon2idHasher().verify("correct horse battery staple", against: known))
        #expect(!Argon2idHasher().verify("correct horse battery stapler", against: known))
    }

    /// libsodium, an independent implementation (and what authd verified with before):
    /// its hashes verify here, and ours verify there, with one lane and with four.
    @Test func hashesCrossVerifyWithLibsodium() throws {
        #expect(sodium_init() >= 0)
        let password = "correct horse battery staple"
        var theirs = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_STRBYTES))
        #expect(crypto_pwhash_argon2id_str(&theirs, password, UInt64(password.utf8.count), 1, 1024 * 1024) == 0)
        let sodiumHash = String(decoding: theirs.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(light.verify(password, against: sodiumHash))
        #expect(!light.verify("wrong", against: sodiumHash))

        let lanes = Argon2idHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 4))
        for ours in [try light.hash(password), try lanes.hash(password)] {
            #expect(crypto_pwhash_argon2id_str_verify(ours, password, UInt64(password.utf8.count)) == 0, "\(ours)")
            #expect(crypto_pwhash_argon2id_str_verify(ours, "wrong", 5) != 0)
        }
    }

    /// Verification fills a region the thread keeps: hashes of growing and shrinking sizes,
    /// one after the other on one thread, each still verify and still reject a wrong password.
    @Test func theKeptRegionServesHashesOfEverySize() throws {
        let sizes: [UInt32] = [1024, 4096, 2048, 8192, 1024]
        let hashes = try sizes.map { try Argon2idHasher(parameters: .init(memoryKiB: $0, iterations: 1, parallelism: 2)).hash("pw-\($0)") }
        for (size, phc) in zip(sizes, hashes) {
            #expect(light.verify("pw-\(size)", against: phc))
            #expect(!light.verify("pw-\(size)x", against: phc))
        }
    }

    /// RFC 9106's Argon2id test vector (5.3), computed by every block-filling variant this
    /// CPU runs: the portable code, SSSE3, AVX2 (those it lacks are never picked). The
    /// variant in use is one process-wide setting, so the cases run one at a time.
    @Test(.serialized, arguments: [ARGON2_SIMD_NONE, ARGON2_SIMD_SSSE3, ARGON2_SIMD_AVX2].filter { argon2_simd_supported($0) != 0 })
    func everySIMDVariantComputesTheRFCVector(simd: argon2_simd) throws {
        defer { _ = argon2_simd_use(ARGON2_SIMD_BEST) }
        #expect(argon2_simd_use(simd) != 0)
        #expect(argon2_simd_in_use() == simd)

        var password = [UInt8](repeating: 1, count: 32)
        var salt = [UInt8](repeating: 2, count: 16)
        var secret = [UInt8](repeating: 3, count: 8)
        var associated = [UInt8](repeating: 4, count: 12)
        var tag = [UInt8](repeating: 0, count: 32)
        let result = tag.withUnsafeMutableBufferPointer { out in
            password.withUnsafeMutableBufferPointer { pwd in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associated.withUnsafeMutableBufferPointer { ad in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: 32, pwd: pwd.baseAddress, pwdlen: 32,
                                salt: salt.baseAddress, saltlen: 16, secret: secret.baseAddress, secretlen: 8,
                                ad: ad.baseAddress, adlen: 12, t_cost: 3, m_cost: 32, lanes: 4, threads: 1,
                                version: UInt32(ARGON2_VERSION_13.rawValue), allocate_cbk: nil, free_cbk: nil, flags: 0
                            )
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        #expect(result == ARGON2_OK.rawValue)
        let expected = "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"
        #expect(tag.map { String(format: "%02x", $0) }.joined() == expected)
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
