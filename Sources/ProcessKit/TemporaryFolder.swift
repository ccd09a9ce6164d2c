import Foundation

/// A new folder of its own under the system's temporary folder, named `prefix-` and a random
/// suffix, optionally holding some text files; ``remove()`` deletes it and what it holds.
///
/// ```swift
/// let folder = try TemporaryFolder("contracts", files: ["login.yaml": yaml])
/// defer { folder.remove() }
/// let suite = ContractLoader.load(directory: folder.path)
/// ```
public struct TemporaryFolder: Sendable, Hashable {
    /// The folder.
    public let url: URL

    /// Creates the folder (`permissions` as `chmod` takes them) and writes `files`, named
    /// relative to it, with their folders.
    public init(_ prefix: String, files: [String: String] = [:], permissions: Int = 0o700) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(12).lowercased())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: permissions])
        for (name, text) in files {
            try write(text, to: name)
        }
    }

    /// The folder's path.
    public var path: String { url.path }

    /// The URL of `name` in the folder.
    public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `text` to `name` in the folder, making the folders it names.
    public func write(_ text: String, to name: String) throws {
        let file = appending(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    /// Deletes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
