import ArgumentParser
import AuthServer
import Foundation
import WebAuthn

/// `--rp-id`, `--rp-name`, `--origin`: the relying party passkeys are registered with.
struct PasskeyOptions: ParsableArguments {
    /// What `--passkey-user-verification` takes.
    enum Verification: String, ExpressibleByArgument, CaseIterable {
        case required, preferred, discouraged
    }

    @Option(
        name: .customLong("rp-id"),
        help: ArgumentHelp(
            "The WebAuthn relying party id passkeys are bound to: the site's domain (example.com), or a suffix of it the origins share; enables the /webauthn routes. Default: none (the routes are 404).",
            valueName: "domain"
        )
    )
    var relyingPartyID: String?

    @Option(
        name: .customLong("rp-name"),
        help: ArgumentHelp("The name authenticators show for the relying party. Default: the --rp-id.", valueName: "name"))
    var relyingPartyName: String?

    @Option(
        name: .customLong("origin"),
        help: ArgumentHelp(
            "An origin the pages or apps that use passkeys are served from (https://example.com, with a port when not the default); repeatable. Default: https://<rp-id>.",
            valueName: "url"
        )
    )
    var origins: [String] = []

    @Option(
        name: .customLong("passkey-user-verification"),
        help:
            "Whether a passkey must verify its user (a PIN, a fingerprint): required (the default; a passkey login then counts as two factors), preferred or discouraged."
    )
    var userVerification: Verification = .required

    func validate() throws {
        guard relyingPartyID != nil || (relyingPartyName == nil && origins.isEmpty) else {
            throw ValidationError("--rp-name and --origin need --rp-id.")
        }
        if let relyingPartyID {
            guard !relyingPartyID.isEmpty, !relyingPartyID.contains("/"), !relyingPartyID.contains(":") else {
                throw ValidationError("--rp-id must be a domain name, without a scheme or a port (example.com).")
            }
        }
        for origin in origins {
            guard let url = URL(string: origin), let scheme = url.scheme, ["https", "http"].contains(scheme), url.host != nil,
                url.path.isEmpty
            else {
                throw ValidationError("--origin \(origin) must be a scheme, a host and perhaps a port (https://example.com).")
            }
        }
    }

    /// The relying party, nil without `--rp-id`.
    func relyingParty() -> WebAuthnRelyingParty? {
        guard let relyingPartyID else { return nil }
        return WebAuthnRelyingParty(
            id: relyingPartyID, name: relyingPartyName ?? relyingPartyID,
            origins: Set(origins.isEmpty ? ["https://\(relyingPartyID)"] : origins),
            userVerification: UserVerificationRequirement(rawValue: userVerification.rawValue) ?? .required,
            // authd asks for no attestation and trusts no vendor: a statement a client passes
            // on anyway is not checked against a vendor's root, the credential's key is used.
            attestationPolicy: .acceptUnverified
        )
    }
}
