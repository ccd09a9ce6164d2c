import ArgumentParser
import AuthCore

/// Argon2id parameters for new hashes.
struct HashOptions: ParsableArguments {
    @Option(name: .customLong("argon2-memory"), help: "Argon2id memory cost in KiB.")
    var memoryKiB: UInt32 = Argon2idHasher.Parameters.owasp.memoryKiB

    @Option(name: .customLong("argon2-iterations"), help: "Argon2id passes.")
    var iterations: UInt32 = Argon2idHasher.Parameters.owasp.iterations

    @Option(name: .customLong("argon2-parallelism"), help: "Argon2id lanes.")
    var parallelism: UInt32 = Argon2idHasher.Parameters.owasp.parallelism

    func validate() throws {
        guard memoryKiB >= 8 * parallelism, iterations >= 1, parallelism >= 1 else {
            throw ValidationError("Argon2id needs at least 1 iteration, 1 lane and 8 KiB of memory per lane.")
        }
    }

    var parameters: Argon2idHasher.Parameters {
        .init(memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism)
    }
}
