import ContractKit
import Foundation

/// `contract can-i-deploy`'s answer: the changes ``ContractDiff`` finds between the contracts
/// clients were tested against and the new ones, held against what each client uses
/// (``ContractUsage``). A breaking change to an interaction a client uses blocks the
/// deployment; breaking changes to interactions no client uses, and safe changes, do not.
///
/// ```swift
/// let check = DeployCheck(changes: ContractDiff.changes(old: old, new: new), usages: [loginClientUsage])
/// check.deployable               // false
/// check.broken.first?.client     // "LoginClient"
/// print(check.text)
/// ```
public struct DeployCheck: Sendable {
    /// A breaking change to an interaction a client uses.
    public struct Broken: Sendable, Equatable {
        /// The client.
        public let client: String
        /// The interaction as the client's usage names it.
        public let used: ContractUsage.Interaction
        /// The change.
        public let change: ContractChange
    }

    /// Every change, in ``ContractDiff``'s order.
    public let changes: [ContractChange]
    /// The clients' usages, as given.
    public let usages: [ContractUsage]
    /// Breaking changes to used interactions, by change then client.
    public let broken: [Broken]
    /// Breaking changes no client's usage names.
    public let unusedBreaking: [ContractChange]
    /// Usage entries whose file and interaction name the old contracts do not have (a renamed
    /// file, usage of other contracts, or one generated against other contracts): reported, not fatal.
    public let unknown: [(client: String, used: ContractUsage.Interaction)]

    /// Holds `changes` (from the contracts the clients were tested against to the new ones)
    /// against `usages`; `old`, when given, finds usage entries that name no interaction of it.
    public init(changes: [ContractChange], usages: [ContractUsage], old: [Contract]? = nil) {
        self.changes = changes
        self.usages = usages
        var broken: [Broken] = []
        var unusedBreaking: [ContractChange] = []
        for change in changes where change.impact == .breaking {
            var users: [Broken] = []
            for usage in usages {
                for used in usage.interactions where used.file == change.file && used.interaction == change.interaction {
                    users.append(Broken(client: usage.client, used: used, change: change))
                }
            }
            if users.isEmpty { unusedBreaking.append(change) } else { broken += users }
        }
        self.broken = broken
        self.unusedBreaking = unusedBreaking
        var unknown: [(client: String, used: ContractUsage.Interaction)] = []
        if let old {
            var known = Set<String>()
            for contract in old {
                let file = (contract.file as NSString).lastPathComponent
                for interaction in contract.interactions { known.insert(file + "\n" + interaction.name) }
            }
            for usage in usages {
                for used in usage.interactions where !known.contains(used.file + "\n" + used.interaction) {
                    unknown.append((usage.client, used))
                }
            }
        }
        self.unknown = unknown
    }

    /// Whether no breaking change touches an interaction a client uses.
    public var deployable: Bool { broken.isEmpty }

    /// The clients whose usage a breaking change touches, sorted.
    public var brokenClients: [String] { Set(broken.map(\.client)).sorted() }

    /// A line per broken use (`BROKEN  client  change`), per breaking change nobody uses
    /// (`unused  change`), per unknown usage entry (`unknown  client  entry`), then the verdict.
    public var text: String {
        var lines: [String] = []
        for item in broken {
            lines.append("BROKEN  \(item.client)  \(item.used.method) \(item.used.path)  \(item.change)")
        }
        for change in unusedBreaking {
            lines.append("unused  \(change)")
        }
        for (client, used) in unknown {
            lines.append("unknown  \(client) uses \(used), which the old contracts do not have")
        }
        lines.append(verdict)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `can-i-deploy: no — …` or `can-i-deploy: yes — …`.
    public var verdict: String {
        let breaking = changes.filter { $0.impact == .breaking }.count
        let safe = changes.count - breaking
        let clients = usages.map(\.client)
        let of = "\(clients.count) client\(clients.count == 1 ? "" : "s") (\(clients.joined(separator: ", ")))"
        if !deployable {
            let touched = Set(broken.map { "\($0.change.file)\n\($0.change.interaction)" }).count
            return
                "can-i-deploy: no — breaking changes to \(touched) interaction\(touched == 1 ? "" : "s") that \(brokenClients.joined(separator: ", ")) use\(brokenClients.count == 1 ? "s" : "") "
                + "(\(breaking) breaking, \(safe) safe; usage of \(of))"
        }
        if breaking == 0 {
            return "can-i-deploy: yes — no breaking changes (\(safe) safe; usage of \(of))"
        }
        return
            "can-i-deploy: yes — \(breaking) breaking change\(breaking == 1 ? "" : "s") to interactions no client uses, \(safe) safe (usage of \(of))"
    }

    /// `{"deployable", "clients", "broken": [{client, method, path, change}], "unused_breaking": [change], "unknown": [{client, file, interaction, method, path}], "summary"}`;
    /// a change as in `contract diff --json`.
    public var json: JSONValue {
        let report = ContractDiffReport(changes: changes)
        let entries: [JSONValue]
        if case .array(let all)? = report.json["changes"] { entries = all } else { entries = [] }
        func entry(_ change: ContractChange) -> JSONValue {
            guard let index = changes.firstIndex(of: change), index < entries.count else { return .null }
            return entries[index]
        }
        return .object([
            "deployable": .bool(deployable),
            "clients": .array(usages.map { .string($0.client) }),
            "broken": .array(
                broken.map {
                    .object([
                        "client": .string($0.client), "method": .string($0.used.method), "path": .string($0.used.path),
                        "change": entry($0.change),
                    ])
                }
            ),
            "unused_breaking": .array(unusedBreaking.map(entry)),
            "unknown": .array(
                unknown.map { item in
                    .object([
                        "client": .string(item.client), "file": .string(item.used.file), "interaction": .string(item.used.interaction),
                        "method": .string(item.used.method), "path": .string(item.used.path),
                    ])
                }
            ),
            "summary": report.json["summary"] ?? .null,
        ])
    }
}
