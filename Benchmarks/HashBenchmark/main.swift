// Prints what Argon2id verification costs with the library authd links (libsodium, through
// AuthCore's Argon2idHasher) and with Debian's reference build (libargon2), at the same
// parameters: one verification alone, and the ceiling — verifications per second with one
// thread per core, no HTTP, no database.
//
//   swift run -c release HashBenchmark [memoryKiB iterations parallelism [seconds]]
//
// Each line is `name value unit`, for scripts/bench to read.
import AuthCore
import CArgon2
import Foundation
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { UInt32($0) }
let parameters = arguments.count >= 3
    ? Argon2idHasher.Parameters(memoryKiB: arguments[0], iterations: arguments[1], parallelism: arguments[2])
    : .owasp
let seconds = arguments.count >= 4 ? Double(arguments[3]) : 5
let password = "correct horse battery staple"
let hasher = Argon2idHasher(parameters: parameters)
let stored = try hasher.hash(password)

let libraries: [(name: String, verify: @Sendable () -> Bool)] = [
    ("libsodium", { hasher.verify(password, against: stored) }),
    ("libargon2", {
        let bytes = Array(password.utf8)
        return argon2id_verify(stored, bytes, bytes.count) == ARGON2_OK.rawValue
    }),
]

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

let cores = ProcessInfo.processInfo.activeProcessorCount
print("parameters \(parameters) -")
print("cores \(cores) -")
for library in libraries {
    precondition(library.verify(), "\(library.name) did not verify the hash")
    var samples: [Double] = []
    for _ in 0..<15 {
        let start = ContinuousClock.now
        _ = library.verify()
        samples.append(milliseconds(ContinuousClock.now - start))
    }
    samples.sort()
    print(String(format: "verify_ms.%@ %.2f ms", library.name, samples[samples.count / 2]))

    // The ceiling: every core verifying for `seconds`.
    let done = Atomic<Int>(0)
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    let start = ContinuousClock.now
    let group = DispatchGroup()
    for _ in 0..<cores {
        group.enter()
        Thread {
            while ContinuousClock.now < deadline {
                _ = library.verify()
                done.add(1, ordering: .relaxed)
            }
            group.leave()
        }.start()
    }
    group.wait()
    let elapsed = milliseconds(ContinuousClock.now - start) / 1000
    print(String(format: "ceiling_per_s.%@ %.1f verifications/s", library.name, Double(done.load(ordering: .relaxed)) / elapsed))
}
