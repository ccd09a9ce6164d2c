import WebAuthn

// What a client test needs to act as the user's authenticator against the stub, with nothing
// imported beyond `ContractStub`: the stub answers the options, the test's
// `SoftwareAuthenticator` makes the credential, the stub verifies it as a relying party.
//
// ```swift
// import ContractStub
//
// let creation = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: optionsBody)
// var phone = SoftwareAuthenticator(origin: "https://example.com")
// let registration = try phone.register(creation)                      // JSONEncoder().encode(registration)
// let request = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: loginOptionsBody)
// let assertion = try phone.authenticate(request)                      // signed with the registered key
// ```

/// An authenticator and client in software (ES256 or Ed25519, attestation `none` or packed
/// self), for a client test to register a passkey with the stub and sign in with it.
///
/// ```swift
/// var phone = SoftwareAuthenticator(algorithm: .es256, origin: "https://example.com")
/// let registration = try phone.register(creationOptions)
/// let assertion = try phone.authenticate(requestOptions)
/// ```
public typealias SoftwareAuthenticator = WebAuthn.SoftwareAuthenticator

/// The options of a registration, as the stub answers them (`POST /webauthn/register/options`).
///
/// ```swift
/// let creation = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: data)
/// ```
public typealias PublicKeyCredentialCreationOptionsJSON = WebAuthn.PublicKeyCredentialCreationOptionsJSON

/// The options of an authentication, as the stub answers them (`POST /webauthn/login/options`).
///
/// ```swift
/// let request = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: data)
/// ```
public typealias PublicKeyCredentialRequestOptionsJSON = WebAuthn.PublicKeyCredentialRequestOptionsJSON

/// A registration's credential, as a browser's `toJSON()` gives it (Codable).
///
/// ```swift
/// let body = try JSONEncoder().encode(["credential": try phone.register(creation)])
/// ```
public typealias RegistrationResponseJSON = WebAuthn.RegistrationResponseJSON

/// An authentication's credential, as a browser's `toJSON()` gives it (Codable).
///
/// ```swift
/// let body = try JSONEncoder().encode(["credential": try phone.authenticate(request)])
/// ```
public typealias AuthenticationResponseJSON = WebAuthn.AuthenticationResponseJSON

/// Why the software authenticator refused options (an algorithm they do not accept, no
/// credential for their RP ID).
///
/// ```swift
/// do { _ = try phone.authenticate(request) } catch let error as WebAuthnError { print(error) }
/// ```
public typealias WebAuthnError = WebAuthn.WebAuthnError
