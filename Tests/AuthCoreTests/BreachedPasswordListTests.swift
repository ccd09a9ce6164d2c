import AuthCore
import AuthTestSupport
import Foundation
import ProcessKit
import Testing

/// The offline list of breached passwords, on generated files in HIBP's format.
@Suite struct BreachedPasswordListTests {
    static let breached = ["a leaked passphrase", "Tr0ub4dor&3 but longer", "pässwörd über alles"]

    /// A folder holding `text` as `pwned.txt`, and the list opened on it.
    static func list(_ text: String) throws -> (TemporaryFolder, BreachedPasswordList) {
        let folder = try TemporaryFolder("breached", files: ["pwned.txt": text])
        return (folder, try BreachedPasswordList(path: folder.appending("pwned.txt").path))
    }

    @Test(arguments: ["\r\n", "\n"])
    func findsEveryLineFirstAndLastIncludedAndNothingBetween(lineEnd: String) throws {
        let hashes = TestBreachedPasswords.hashes(breached: Self.breached, filler: 3000)
        let (folder, list) = try Self.list(TestBreachedPasswords.text(hashes: hashes, lineEnd: lineEnd))
        defer { folder.remove() }
        for password in Self.breached {
            #expect(try list.contains(password))
        }
        // The first and the last line, whatever passwords they belong to.
        let all = Self.breached + (0..<3000).map { "made-up breached password \($0)" }
        let byHash = Dictionary(uniqueKeysWithValues: all.map { (BreachedPasswordList.hash(of: $0), $0) })
        for hash in [hashes[0], hashes[1], hashes[hashes.count / 2], hashes[hashes.count - 2], hashes[hashes.count - 1]] {
            #expect(try list.contains(try #require(byHash[hash])))
        }
        // Hashes that fall between two lines, before the first and after the last.
        var between = 0
        for candidate in (0..<2000).map({ "never breached \($0)" }) {
            let hash = BreachedPasswordList.hash(of: candidate)
            #expect(try !list.contains(candidate))
            if hash > hashes[0], hash < hashes[hashes.count - 1] { between += 1 }
        }
        #expect(between > 1900)
        #expect(try !list.contains("correct horse battery staple"))
    }

    @Test func aLastLineWithoutALineEndAndAOneLineFile() throws {
        let hashes = TestBreachedPasswords.hashes(breached: Self.breached, filler: 100)
        let (folder, list) = try Self.list(String(TestBreachedPasswords.text(hashes: hashes, lineEnd: "\n").dropLast()))
        defer { folder.remove() }
        for password in Self.breached { #expect(try list.contains(password)) }
        #expect(try !list.contains("never breached"))

        let (one, single) = try Self.list(TestBreachedPasswords.text(breached: ["only this one"]))
        defer { one.remove() }
        #expect(try single.contains("only this one"))
        #expect(try !single.contains("not this one"))
    }

    /// The hash is of the UTF-8 bytes as given: the caller normalises, the list does not.
    @Test func hashesTheUTF8OfThePasswordAsGiven() throws {
        #expect(BreachedPasswordList.hash(of: "password") == "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8")
        let (folder, list) = try Self.list(TestBreachedPasswords.text(breached: ["caf\u{E9} au lait"]))
        defer { folder.remove() }
        #expect(try list.contains("caf\u{E9} au lait"))
        #expect(try !list.contains("cafe\u{301} au lait"))
    }

    /// A lookup reads O(log n) windows of 128 bytes, never the whole file: at most
    /// log2(size) + 3 reads, on a small and on a 20 MB file alike.
    @Test(arguments: [3000, 400_000])
    func aLookupReadsLogarithmicallyManyBlocks(filler: Int) throws {
        let (folder, list) = try Self.list(TestBreachedPasswords.text(breached: Self.breached, filler: filler))
        defer { folder.remove() }
        let bound = Int(log2(Double(list.size))) + 3
        for password in Self.breached + ["never breached", "another never breached"] {
            let before = list.reads
            _ = try list.contains(password)
            let reads = list.reads - before
            #expect(reads >= 1 && reads <= bound, "\(reads) reads, more than \(bound)")
            #expect(Int64(reads * 128) < list.size / 20)
        }
    }

    @Test func refusesWhatIsNotAListNamingTheFile() throws {
        let folder = try TemporaryFolder(
            "breached",
            files: [
                "empty.txt": "",
                "ntlm.txt": "00000000A8DAE4228F821FB418F59826:3\r\n",
                "lowercase.txt": "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8:10\n",
                "hash-only.txt": "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\n",
                "words.txt": "password\n123456\n",
            ]
        )
        defer { folder.remove() }
        for name in ["missing.txt", "empty.txt", "ntlm.txt", "lowercase.txt", "hash-only.txt", "words.txt", "."] {
            let path = folder.appending(name).path
            do {
                _ = try BreachedPasswordList(path: path)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.description.contains(path))
            }
        }
    }

    /// A file that starts right but is broken further on fails the lookup that meets the break.
    @Test func aCorruptLineFailsTheLookupThatReadsIt() throws {
        let hashes = TestBreachedPasswords.hashes(breached: Self.breached, filler: 50)
        let text =
            TestBreachedPasswords.text(hashes: Array(hashes.prefix(1)), lineEnd: "\n") + String(repeating: "not a hash line\n", count: 60)
        let (folder, list) = try Self.list(text)
        defer { folder.remove() }
        #expect(throws: BreachedPasswordList.Invalid.self) { try list.contains("anything") }
    }
}
