#!/usr/bin/env python3
"""WebAuthn interop with Python's fido2 (Yubico) and soft-webauthn.

    python -m venv venv && venv/bin/pip install fido2 soft-webauthn

generate
    A registration and an assertion made by soft-webauthn's SoftWebauthnDevice (ES256,
    fmt none; its assertions set UP only, not UV, and count from 1) for a fixed challenge,
    origin and RP ID, each first checked by fido2's Fido2Server, printed as the JSON forms
    (base64url) that browsers' toJSON() gives. The output is pasted into
    PythonInteropTests.swift as fixtures.

verify DIR
    Checks what the Swift SoftwareAuthenticator wrote into DIR (run the Swift tests with
    WEBAUTHN_INTEROP_OUT=DIR) with fido2's Fido2Server: every registration with
    register_complete (packed self-attestation also through fido2's PackedAttestation), and
    its assertions with authenticate_complete. Exits non-zero on the first refusal.
"""

import json
import os
import sys
from base64 import urlsafe_b64encode

import fido2.features
from fido2.attestation import PackedAttestation
from fido2.server import Fido2Server
from fido2.utils import websafe_decode
from fido2.webauthn import (
    AttestedCredentialData,
    PublicKeyCredentialRpEntity,
    PublicKeyCredentialUserEntity,
    UserVerificationRequirement,
)
from soft_webauthn import SoftWebauthnDevice

fido2.features.webauthn_json_mapping.enabled = True

RP_ID = "example.org"
ORIGIN = "https://example.org"
REGISTRATION_CHALLENGE = bytes(range(32))
AUTHENTICATION_CHALLENGE = bytes(range(32, 64))
USER_HANDLE = b"user-handle-0001"


def b64u(data: bytes) -> str:
    return urlsafe_b64encode(data).decode("ascii").rstrip("=")


def json_form(credential: dict) -> dict:
    """soft-webauthn's dict of bytes as the toJSON() form."""
    response = {
        key: b64u(value) if isinstance(value, bytes) else value
        for key, value in credential["response"].items()
    }
    return {
        "id": b64u(credential["rawId"]),
        "rawId": b64u(credential["rawId"]),
        "type": "public-key",
        "response": response,
        "clientExtensionResults": {},
    }


def server() -> Fido2Server:
    return Fido2Server(PublicKeyCredentialRpEntity(id=RP_ID, name="Example"))


def generate() -> None:
    device = SoftWebauthnDevice()
    registration = json_form(
        device.create(
            {
                "publicKey": {
                    "rp": {"id": RP_ID, "name": "Example"},
                    "user": {"id": USER_HANDLE, "name": "alice", "displayName": "Alice"},
                    "challenge": REGISTRATION_CHALLENGE,
                    "pubKeyCredParams": [{"alg": -7, "type": "public-key"}],
                    "attestation": "none",
                }
            },
            ORIGIN,
        )
    )
    assertion = json_form(
        device.get({"publicKey": {"rpId": RP_ID, "challenge": AUTHENTICATION_CHALLENGE}}, ORIGIN)
    )

    rp = server()
    _, state = rp.register_begin(
        PublicKeyCredentialUserEntity(id=USER_HANDLE, name="alice", display_name="Alice"),
        challenge=REGISTRATION_CHALLENGE,
        user_verification=UserVerificationRequirement.DISCOURAGED,
    )
    auth_data = rp.register_complete(state, registration)
    _, state = rp.authenticate_begin(
        [auth_data.credential_data],
        challenge=AUTHENTICATION_CHALLENGE,
        user_verification=UserVerificationRequirement.DISCOURAGED,
    )
    rp.authenticate_complete(state, [auth_data.credential_data], assertion)

    print(
        json.dumps(
            {
                "rpId": RP_ID,
                "origin": ORIGIN,
                "registrationChallenge": b64u(REGISTRATION_CHALLENGE),
                "authenticationChallenge": b64u(AUTHENTICATION_CHALLENGE),
                "registration": registration,
                "assertion": assertion,
            },
            indent=2,
        )
    )


def verify_packed(attestation_object, client_data_hash) -> None:
    if attestation_object.fmt == "packed":
        result = PackedAttestation().verify(
            attestation_object.att_stmt, attestation_object.auth_data, client_data_hash
        )
        print(f"    packed attestation: {result.attestation_type.name}")
    elif attestation_object.fmt != "none":
        raise ValueError(f"unexpected fmt {attestation_object.fmt}")


def verify(directory: str) -> None:
    names = sorted(name for name in os.listdir(directory) if name.endswith(".json"))
    if not names:
        sys.exit(f"no .json files in {directory}")
    for name in names:
        with open(os.path.join(directory, name)) as file:
            flow = json.load(file)
        rp = Fido2Server(
            PublicKeyCredentialRpEntity(id=flow["rpId"], name="Example"),
            attestation="direct",
            verify_origin=lambda origin, expected=flow["origin"]: origin == expected,
            verify_attestation=verify_packed,
        )
        _, state = rp.register_begin(
            PublicKeyCredentialUserEntity(id=b"user", name="alice", display_name="Alice"),
            challenge=websafe_decode(flow["registrationChallenge"]),
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        auth_data = rp.register_complete(state, flow["registration"])
        credential: AttestedCredentialData = auth_data.credential_data
        print(f"{name}: registration accepted (alg {credential.public_key.ALGORITHM}, flags {auth_data.flags:#04x})")
        for index, assertion in enumerate(flow["assertions"]):
            _, state = rp.authenticate_begin(
                [credential],
                challenge=websafe_decode(flow["authenticationChallenges"][index]),
                user_verification=UserVerificationRequirement.REQUIRED,
            )
            rp.authenticate_complete(state, [credential], assertion)
            print(f"{name}: assertion {index + 1} accepted")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "generate":
        generate()
    elif len(sys.argv) == 3 and sys.argv[1] == "verify":
        verify(sys.argv[2])
    else:
        sys.exit(__doc__)
