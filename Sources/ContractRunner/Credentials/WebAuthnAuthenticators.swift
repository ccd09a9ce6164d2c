import ContractKit
import Foundation
import Synchronization
import WebAuthn

/// The software authenticators of one run (`contract verify`'s side of a provider,
/// `probe`, `pact-states`): one `SoftwareAuthenticator` per name, kept across the
/// interactions and files of the run, so that the key a `webauthn_registration` made is the
/// one a later `webauthn_assertion` by the same name signs with. A registration makes a new
/// credential (replacing the name's earlier one); an assertion needs one.
///
/// ```swift
/// let authenticators = WebAuthnAuthenticators()
/// let registration = try authenticators.credential(for: registrationSpec, options: savedCreationOptions)
/// let assertion = try authenticators.credential(for: assertionSpec, options: savedRequestOptions)   // the same key signs
/// ```
public final class WebAuthnAuthenticators: WebAuthnCredentialSource {
    /// An assertion by an authenticator that has registered no credential in this run.
    ///
    /// ```swift
    /// catch let missing as WebAuthnAuthenticators.NoCredential { print(missing) }   // "$.credential: the authenticator 'mia-phone' has …"
    /// ```
    public struct NoCredential: Error, Sendable, CustomStringConvertible {
        /// The authenticator's name.
        public let authenticator: String
        /// Where in the request the assertion goes (`$.credential`).
        public var path = "$"

        /// What happened, for a person.
        public var description: String {
            "\(path): the authenticator '\(authenticator)' has registered no credential in this run: a webauthn_assertion needs an earlier webauthn_registration by the same authenticator"
        }
    }

    /// The options or the authenticator refused to make a credential (options that are not of
    /// the ceremony's shape, an algorithm they do not accept, an RP ID it holds no key for).
    ///
    /// ```swift
    /// catch let refused as WebAuthnAuthenticators.Refused { refused.reason.check }   // .algorithm
    /// ```
    public struct Refused: Error, Sendable, CustomStringConvertible {
        /// The matcher, as ``WebAuthnSpec/summary`` says it.
        public let matcher: String
        /// Why.
        public let reason: WebAuthnError

        /// What happened, for a person.
        public var description: String { "\(matcher): \(reason)" }
    }

    private let authenticators = Mutex<[String: SoftwareAuthenticator]>([:])

    /// A run's authenticators, none registered yet.
    ///
    /// ```swift
    /// let authenticators = WebAuthnAuthenticators()
    /// ```
    public init() {}

    /// The credential `spec`'s authenticator makes for `options` (the saved options' JSON),
    /// as the JSON a browser's `toJSON()` gives: a registration makes a new key for the
    /// name, an assertion signs with the name's key, one more on its counter.
    ///
    /// ```swift
    /// let body: JSONValue = ["credential": try authenticators.credential(for: spec, options: saved["creation"] ?? .null)]
    /// ```
    /// - Throws: ``NoCredential`` for an assertion before any registration by the name,
    ///   ``Refused`` when the options do not decode or the authenticator cannot answer them.
    public func credential(for spec: WebAuthnSpec, options: JSONValue) throws -> JSONValue {
        let data = try authenticators.withLock { authenticators throws -> Data in
            var authenticator: SoftwareAuthenticator
            switch spec.ceremony {
            case .registration:
                // A name keeps its authenticator; another algorithm needs another one.
                authenticator =
                    authenticators[spec.authenticator].flatMap { $0.algorithm == spec.algorithm ? $0 : nil }
                    ?? SoftwareAuthenticator(algorithm: spec.algorithm, origin: spec.origin)
                authenticator.attestation = spec.attestation
            case .assertion:
                guard let registered = authenticators[spec.authenticator], registered.credentialID != nil else {
                    throw NoCredential(authenticator: spec.authenticator)
                }
                authenticator = registered
            }
            authenticator.origin = spec.origin
            authenticator.userVerified = spec.userVerified
            do throws(WebAuthnError) {
                let data: Data =
                    switch spec.ceremony {
                    case .registration: try Self.encoded(authenticator.register(spec.creationOptions(options)))
                    case .assertion: try Self.encoded(authenticator.authenticate(spec.requestOptions(options)))
                    }
                authenticators[spec.authenticator] = authenticator
                return data
            } catch {
                throw Refused(matcher: spec.summary, reason: error)
            }
        }
        return try JSONValue(parsing: data)
    }

    /// ``credential(for:options:)`` for a request's `path`, which a missing credential names;
    /// a refusal is a ``MatcherSampleError`` there.
    public func credential(for spec: WebAuthnSpec, options: JSONValue, at path: String) throws -> JSONValue {
        do {
            return try credential(for: spec, options: options)
        } catch var missing as NoCredential {
            missing.path = path
            throw missing
        } catch let refused as Refused {
            throw MatcherSampleError(path: path, reason: "\(refused)")
        }
    }

    /// The ID of the credential the authenticator named `name` holds; nil before its
    /// registration.
    ///
    /// ```swift
    /// authenticators.credentialID("mia-phone")   // the rawId its registration sent
    /// ```
    public func credentialID(_ name: String) -> Data? {
        authenticators.withLock { $0[name]?.credentialID }
    }

    /// A response as JSON bytes.
    private static func encoded(_ response: some Encodable) throws(WebAuthnError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(response)
        } catch {
            throw .malformed("credential", "could not be written as JSON")
        }
    }
}
