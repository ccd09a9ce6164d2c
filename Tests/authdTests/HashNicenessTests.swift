import AuthTestSupport
import Foundation
import Testing

/// `authd serve --hash-niceness`: the nice value of the hashing threads, 19 unless told.
@Suite struct HashNicenessTests {
    #if os(Linux)
        /// The nice values of `pid`'s threads named `authd-hash-…` (`/proc/PID/task/*/stat`, whose
        /// 19th field is the nice value).
        static func hashingNiceness(of pid: pid_t) -> [Int] {
            let tasks = "/proc/\(pid)/task"
            return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).compactMap { task in
                guard let stat = try? String(contentsOfFile: "\(tasks)/\(task)/stat", encoding: .utf8), stat.contains(" (authd-hash-"),
                    let name = stat.range(of: ") ", options: .backwards)
                else { return nil }
                // After "pid (name) ", the 3rd field is the first.
                let fields = stat[name.upperBound...].split(separator: " ")
                return fields.count > 16 ? Int(fields[16]) : nil
            }
        }

        /// Every thread's name and nice value, for a failure's message.
        static func threads(of pid: pid_t) -> [String] {
            let tasks = "/proc/\(pid)/task"
            return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).compactMap { task in
                guard let stat = try? String(contentsOfFile: "\(tasks)/\(task)/stat", encoding: .utf8),
                    let open = stat.firstIndex(of: "("), let close = stat.range(of: ") ", options: .backwards)
                else { return nil }
                let fields = stat[close.upperBound...].split(separator: " ")
                return "\(stat[stat.index(after: open)..<close.lowerBound]):\(fields.count > 16 ? String(fields[16]) : "?")"
            }.sorted()
        }

        @Test func theHashingThreadsRunAtTheNiceValueGiven() async throws {
            let database = try await TestCluster.newMigratedDatabase()
            let url = ["--database-url", database.url]
            for (arguments, expected) in [([String](), 19), (["--hash-niceness", "7"], 7), (["--hash-niceness", "0"], 0)] {
                let (server, base) = try await AuthdBinary.serve(url + arguments)
                // Each thread names itself and sets its value as it starts. A login's hash runs on
                // one of them, so once it is answered one has started, however loaded the machine
                // (waiting alone, at nice 7 beside the rest of the suite, none had run after 60 s
                // in one run); the others may start later, and are checked as they are seen.
                let (status, _) = try await AuthdBinary.login(base, "nobody", "a password to hash")
                var seen: [Int] = []
                for _ in 0..<1_200 {
                    seen = Self.hashingNiceness(of: server.pid)
                    if !seen.isEmpty, seen.allSatisfy({ $0 == expected }) { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let threads = Self.threads(of: server.pid)
                #expect(try await AuthdBinary.stop(server) == 0)
                #expect(!seen.isEmpty && seen.allSatisfy { $0 == expected }, "\(arguments): \(seen); login \(status); threads \(threads)")
            }
            let refused = try await AuthdBinary.run(["serve", "--hash-niceness", "20"] + url)
            #expect(refused.status != 0 && refused.stderr.contains("--hash-niceness must be between 0 and 19."), "\(refused.stderr)")
        }
    #endif
}
