import ContractKit
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

/// RFC 6238 codes, base32 keys, and the codes a run sends.
@Suite struct TOTPTests {
    /// RFC 6238 appendix B: the seeds of each hash, 8 digits, 30-second steps.
    static let seeds: [TOTP.Algorithm: String] = [
        .sha1: "12345678901234567890",
        .sha256: "12345678901234567890123456789012",
        .sha512: "1234567890123456789012345678901234567890123456789012345678901234",
    ]

    @Test(
        arguments: [
            (59, "94287082", "46119246", "90693936"),
            (1_111_111_109, "07081804", "68084774", "25091201"),
            (1_111_111_111, "14050471", "67062674", "99943326"),
            (1_234_567_890, "89005924", "91819424", "93441116"),
            (2_000_000_000, "69279037", "90698825", "38618901"),
            (20_000_000_000, "65353130", "77737706", "47863826"),
        ] as [(Int, String, String, String)])
    func rfc6238Vectors(time: Int, sha1: String, sha256: String, sha512: String) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        for (algorithm, expected) in [(TOTP.Algorithm.sha1, sha1), (.sha256, sha256), (.sha512, sha512)] {
            let key = Array((Self.seeds[algorithm] ?? "").utf8)
            #expect(try TOTP(key: key, digits: 8, algorithm: algorithm).code(at: date) == expected, "\(algorithm) at \(time)")
            // The same key shared as base32, as an enrolment hands it out.
            #expect(try TOTP(secret: Base32.encode(key), digits: 8, algorithm: algorithm).code(at: date) == expected)
        }
        // Six digits are the last six of eight (the same number, a smaller modulus).
        #expect(try TOTP(key: Array((Self.seeds[.sha1] ?? "").utf8)).code(at: date) == String(sha1.suffix(6)))
    }

    @Test func base32FollowsRFC4648() {
        let vectors = [
            ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI"),
        ]
        for (text, encoded) in vectors {
            #expect(Base32.encode(Array(text.utf8)) == encoded)
            if !encoded.isEmpty { #expect(Base32.decode(encoded) == Array(text.utf8)) }
        }
        // Either case, spaces and padding ignored; anything else is not base32.
        #expect(Base32.decode("mzxw 6ytb oi======") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
        #expect(Base32.decode("MZXW-6") == nil)
        #expect(Base32.decode("") == nil)
        #expect(Base32.decode("====") == nil)
        let random = (0..<23).map { _ in UInt8.random(in: 0...255) }
        #expect(Base32.decode(Base32.encode(random)) == random)
    }

    @Test func keysOutOfRangeAreRefused() {
        #expect(throws: TOTP.Error.self) { try TOTP(secret: "JBSWY3DP!") }
        #expect(throws: TOTP.Error.self) { try TOTP(secret: "") }
        #expect(throws: TOTP.Error.self) { try TOTP(secret: "JBSWY3DP", digits: 5) }
        #expect(throws: TOTP.Error.self) { try TOTP(secret: "JBSWY3DP", digits: 9) }
        #expect(throws: TOTP.Error.self) { try TOTP(secret: "JBSWY3DP", period: 0) }
        do {
            _ = try TOTP(secret: "JBSWY3DP", digits: 9)
        } catch {
            #expect("\(error)" == "a code has 6 to 8 digits, not 9")
        }
    }

    @Test func aCodeIsFoundWithinOneStepEitherSide() throws {
        let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP")
        let now = Date(timeIntervalSince1970: 1_700_000_015)
        let step = totp.step(at: now)
        #expect(step == 56_666_667)
        for offset in Int64(-1)...1 {
            #expect(totp.step(of: totp.code(step: step + offset), near: now) == step + offset)
        }
        #expect(totp.step(of: "12345", near: now) == nil)
    }

    @Test(.enabled(if: PythonTools.python(importing: "pyotp", from: "pyotp") != nil, "pyotp could not be installed from PyPI"))
    func agreesWithPyotp() throws {
        let python = try #require(PythonTools.python(importing: "pyotp", from: "pyotp"))
        var cases: [JSONValue] = []
        var expected: [String] = []
        for index in 0..<60 {
            let algorithm = TOTP.Algorithm.allCases[index % 3]
            let digits = 6 + index % 3
            let period = [30, 60, 15][index / 3 % 3]
            let secret = Base32.encode((0..<Int.random(in: 14...40)).map { _ in UInt8.random(in: 0...255) })
            let time = Int.random(in: 0...4_000_000_000)
            let totp = try TOTP(secret: secret, digits: digits, period: period, algorithm: algorithm)
            cases.append([
                "secret": .string(secret), "digits": .integer(digits), "period": .integer(period),
                "digest": .string(algorithm.rawValue.lowercased()), "time": .integer(time),
            ])
            expected.append(totp.code(at: Date(timeIntervalSince1970: TimeInterval(time))))
        }
        let script = """
            import hashlib, json, sys, pyotp
            for c in json.loads(sys.argv[1]):
                print(pyotp.TOTP(c["secret"], digits=c["digits"], digest=getattr(hashlib, c["digest"]), interval=c["period"]).at(c["time"]))
            """
        let result = try CommandRunner.run(python, ["-c", script, JSONValue.array(cases).description])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.split(separator: "\n").map(String.init) == expected)
    }
}
