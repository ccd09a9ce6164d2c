import ArgumentParser
import AuthCore
import Foundation
import JOSE

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--key-encryption-key-file` / `AUTHD_KEY_ENCRYPTION_KEY`: the key-encryption key (KEK)
/// that seals the signing keys at rest, for every command that reads or writes them. With
/// the embedded cluster and neither given, a KEK file kept in the cluster's folder (created
/// on first use, mode 0600); with a database URL and neither given, an error.
struct KeyEncryptionKeyOptions: ParsableArguments {
    /// The environment variable holding the KEK as base64.
    static let environmentVariable = "AUTHD_KEY_ENCRYPTION_KEY"
    /// The name of the embedded cluster's KEK file, in its folder.
    static let embeddedFileName = "key-encryption-key"

    @Option(
        name: .customLong("key-encryption-key-file"),
        help: ArgumentHelp(
            "The key that seals the signing keys: 32 raw bytes, or their base64 text. Default: $\(environmentVariable) (base64), else, with the embedded cluster only, a key file in its folder.",
            valueName: "file"
        )
    )
    var file: String?

    /// The KEK given by `--key-encryption-key-file`, else by the environment; nil when neither.
    func givenKey() throws -> KeyEncryptionKey? {
        if let file {
            let contents: Data
            do {
                contents = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError("cannot read --key-encryption-key-file \(file): \((error as NSError).localizedDescription)")
            }
            do {
                return try KeyEncryptionKey(fileContents: contents)
            } catch let error as KeyEncryptionKey.Invalid {
                throw CLIError("--key-encryption-key-file \(file): \(error)")
            }
        }
        guard let text = Environment.value(Self.environmentVariable) else { return nil }
        do {
            return try KeyEncryptionKey(base64: text)
        } catch let error as KeyEncryptionKey.Invalid {
            throw CLIError("\(Self.environmentVariable): \(error)")
        }
    }

    /// Why a command with a database URL refuses to run without a KEK, and how to make one.
    static var missing: CLIError {
        CLIError(
            "no key-encryption key: the signing keys are sealed under one. Make one with "
                + "`head -c 32 /dev/urandom | base64 > authd.kek` (chmod 600 it, and back it up: without it the keys are lost) "
                + "and pass --key-encryption-key-file authd.kek, or put its text in \(environmentVariable)."
        )
    }

    /// The embedded cluster's KEK in `folder`, made (random, base64 text, mode 0600) if
    /// there is none yet. Concurrent first uses agree on one file: each writes a file of
    /// its own and links it into place, and the losers read the winner's.
    static func embeddedKey(in folder: String, created: (String) -> Void) throws -> KeyEncryptionKey {
        let path = folder + "/" + embeddedFileName
        if !FileManager.default.fileExists(atPath: path) {
            let temporary = path + ".\(getpid()).tmp"
            var text = Data(SecureRandom.bytes(KeyEncryptionKey.byteCount)).base64EncodedString() + "\n"
            let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw CLIError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
            let written = text.withUTF8 { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor) == 0
            close(descriptor)
            defer { unlink(temporary) }
            guard written == text.utf8.count, synced else {
                throw CLIError("cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            if link(temporary, path) == 0 {
                created(path)
            } else if errno != EEXIST {
                throw CLIError("cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        do {
            return try KeyEncryptionKey(fileContents: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as KeyEncryptionKey.Invalid {
            throw CLIError("\(path): \(error)")
        } catch {
            throw CLIError("cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }

    /// Runs `body`, turning a ``AuthCore/SealingError`` into a CLI error that says what to do.
    static func reportingSealingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SealingError {
            guard error.isWrongKey else { throw CLIError("\(error)") }
            throw CLIError(
                "\(error). Pass the key-encryption key the keys were sealed with (--key-encryption-key-file or \(environmentVariable)); "
                    + "if it is lost, `authd keys rotate --revoke-all` with a new one replaces every signing key (tokens signed so far stop verifying)."
            )
        }
    }
}
