// Prints what Argon2id verification costs with the implementation authd links (through
// AuthCore's Argon2idHasher: the reference code with SIMD picked at run time), with the same
// code forced to its portable variant (what a distribution's generic build runs), and with
// libsodium, at the same parameters: one verification alone, and the ceiling —
// verifications per second with one thread per core, no HTTP, no database.
//
//   swift run -c release HashBenchmark [memoryKiB iterations parallelism [seconds]]
//
// Each line is `name value unit`, for scripts/bench to read.
import AuthCore
import CArgon2
import CSodium
import Foundation
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { UInt32($0) }
let parameters =
    arguments.count >= 3
    ? Argon2idHasher.Parameters(memoryKiB: arguments[0], iterations: arguments[1], parallelism: arguments[2])
    : .owasp
let seconds = arguments.count >= 4 ? Double(arguments[3]) : 5
let password = "correct horse battery staple"
let hasher = Argon2idHasher(parameters: parameters)
let stored = try hasher.hash(password)
precondition(sodium_init() >= 0, "libsodium failed to initialise")

/// Each implementation: its name, the block-filling variant it forces (BEST: the run-time choice), a verification.
let libraries: [(name: String, simd: argon2_simd, verify: @Sendable () -> Bool)] = [
    ("authd", ARGON2_SIMD_BEST, { hasher.verify(password, against: stored) }),
    ("portable", ARGON2_SIMD_NONE, { hasher.verify(password, against: stored) }),
    (
        "libsodium", ARGON2_SIMD_BEST,
        {
            crypto_pwhash_argon2id_str_verify(stored, password, UInt64(password.utf8.count)) == 0
        }
    ),
]

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

let cores = ProcessInfo.processInfo.activeProcessorCount
print("parameters \(parameters) -")
print("cores \(cores) -")
print("simd \(argon2_simd_in_use().rawValue) (1 portable, 2 SSSE3, 3 AVX2)")
for library in libraries {
    precondition(argon2_simd_use(library.simd) != 0)
    defer { _ = argon2_simd_use(ARGON2_SIMD_BEST) }
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
