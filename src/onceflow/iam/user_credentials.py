"""A user's sign-in credentials besides access keys: the console password (login profile), SSH
public keys (CodeCommit), X.509 signing certificates and MFA devices. Each is kept whole as JSON in
IAM's object table, by kind: login profiles by the user's name key, the others by their own id."""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from typing import Any

from onceflow.iam import errors, passwords, totp
from onceflow.iam.account import PASSWORD as PASSWORD_POLICY
from onceflow.iam.common import drop_tags, merge_tags, new_id, now, page
from onceflow.iam.store import IamStore, Row

LOGIN, SSH, CERT, MFA = "login-profile", "ssh-key", "signing-cert", "mfa-device"
SERVICE_CREDENTIAL = "service-credential"  # service_credentials.py
SSH_KEYS_PER_USER = 5
CERTS_PER_USER = 2
SERIAL_NUMBER_MAX = 256  # the model's serialNumberType: the longest serial number an MFA call takes
_BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def blockers(store: IamStore, account: str, user_key: str) -> str | None:
    """What DeleteUser must be told to remove first, if the user still has any of these."""
    if store.obj(account, LOGIN, user_key):
        return "delete login profile"
    for kind, what in ((CERT, "delete signing certificates"), (SSH, "delete SSH public keys"),
                       (MFA, "delete MFA devices"),  # UNCONFIRMED wording of these two
                       (SERVICE_CREDENTIAL, "remove service specific credentials")):
        if any(o.get("user") == user_key for o in store.objs(account, kind)):
            return what
    return None


def move(store: IamStore, conn: Any, account: str, old_key: str, user: Row) -> None:
    """UpdateUser gave the user a new name: its credentials follow it."""
    key = user["name"].lower()
    profile = store.obj(account, LOGIN, old_key)
    if profile is not None:
        store.delete_obj(conn, account, LOGIN, old_key)
        store.put_obj(conn, account, LOGIN, key, {**profile, "user": key, "UserName": user["name"]})
    for kind, id_field in ((SSH, "SSHPublicKeyId"), (CERT, "CertificateId"), (MFA, "SerialNumber"),
                           (SERVICE_CREDENTIAL, "ServiceSpecificCredentialId")):
        for o in store.objs(account, kind):
            if o.get("user") == old_key:
                store.put_obj(conn, account, kind, o[id_field], {**o, "user": key, "UserName": user["name"]})


class UserCredentials:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    def _user(self, account: str, name: str) -> Row:
        user = self.store.user(account, name)
        if user is None:
            raise errors.user_not_found(name)
        return user

    # ------------------------------------------------------------------ login profiles
    def create_login_profile(self, account: str, name: str, reset_required: bool, password: str | None = None) -> Row:
        user = self._user(account, name)  # a missing user is named before a weak password (UNCONFIRMED order)
        profile = {"user": name.lower(), "UserName": user["name"], "CreateDate": now(),
                   "PasswordResetRequired": reset_required}
        if password is not None:  # checked and hashed before the write transaction, which waits for no hash
            passwords.check(password, self._password_policy(account))
            _set_password(profile, password)
        with self.store.writing() as conn:
            user = self._user(account, name)
            if self.store.obj(account, LOGIN, name.lower()):
                raise errors.login_profile_exists(user["name"])
            self.store.put_obj(conn, account, LOGIN, name.lower(), profile)
        return profile

    def _password_policy(self, account: str) -> Row | None:
        return self.store.obj(account, PASSWORD_POLICY, "")

    def login_profile(self, account: str, name: str) -> Row:
        user = self._user(account, name)
        profile = self.store.obj(account, LOGIN, name.lower())
        if profile is None:
            raise errors.login_profile_not_found(user["name"])
        return profile

    def update_login_profile(self, account: str, name: str, reset_required: bool | None,
                             password: str | None = None) -> None:
        changes: Row = {} if password is None else self._new_password(account, self.login_profile(account, name),
                                                                        password)
        if reset_required is not None:
            changes["PasswordResetRequired"] = reset_required
        self._write_profile(account, name, changes)

    def change_password(self, account: str, name: str, old: str, new: str) -> None:
        """ChangePassword: the calling user's own password, given the current one; a reset the
        profile asked for is then done."""
        profile = self.login_profile(account, name)
        # A profile made without a password (or before passwords were kept) has none to compare.
        if profile.get("password") is not None and not passwords.matches(old, profile["password"]):
            raise errors.wrong_old_password()
        self._write_profile(account, name, {**self._new_password(account, profile, new),
                                            "PasswordResetRequired": False})

    def _new_password(self, account: str, profile: Row, password: str) -> Row:
        """The profile's fields for a new password, checked against the policy and the history;
        hashing happens here, outside any write transaction (PBKDF2 takes milliseconds a hash)."""
        policy = self._password_policy(account)
        passwords.check(password, policy)
        keep = int((policy or {}).get("PasswordReusePrevention", 0))
        if passwords.reused(password, profile.get("history", []), keep):
            raise errors.password_reused(keep)
        changes = {"history": profile.get("history", [])}
        _set_password(changes, password)
        return changes

    def _write_profile(self, account: str, name: str, changes: Row) -> None:
        with self.store.writing() as conn:
            profile = self.login_profile(account, name)
            self.store.put_obj(conn, account, LOGIN, name.lower(), {**profile, **changes})

    def delete_login_profile(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            self.login_profile(account, name)
            self.store.delete_obj(conn, account, LOGIN, name.lower())

    # ------------------------------------------------------------------ SSH public keys
    def upload_ssh_key(self, account: str, name: str, body: str) -> Row:
        fingerprint = _ssh_fingerprint(body)
        with self.store.writing() as conn:
            user = self._user(account, name)
            if len(self._owned(account, SSH, name)) >= SSH_KEYS_PER_USER:
                raise errors.quota_exceeded("SSHPublicKeysPerUser", SSH_KEYS_PER_USER)
            key = {"user": name.lower(), "UserName": user["name"], "SSHPublicKeyId": new_id("APKA", 20),
                   "Fingerprint": fingerprint, "SSHPublicKeyBody": body, "Status": "Active", "UploadDate": now()}
            self.store.put_obj(conn, account, SSH, key["SSHPublicKeyId"], key)
        return key

    def ssh_key(self, account: str, name: str, key_id: str) -> Row:
        self._user(account, name)
        key = self.store.obj(account, SSH, key_id)
        if key is None or key["user"] != name.lower():
            raise errors.ssh_key_not_found(key_id)
        return key

    def ssh_keys(self, account: str, name: str | None, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        keys = self._owned(account, SSH, name) if name else self.store.objs(account, SSH)
        return page(keys, params.get("Marker"), params.get("MaxItems"), lambda k: k["SSHPublicKeyId"])

    def update_ssh_key(self, account: str, name: str, key_id: str, status: str) -> None:
        with self.store.writing() as conn:
            key = self.ssh_key(account, name, key_id)
            self.store.put_obj(conn, account, SSH, key_id, {**key, "Status": status})

    def delete_ssh_key(self, account: str, name: str, key_id: str) -> None:
        with self.store.writing() as conn:
            self.ssh_key(account, name, key_id)
            self.store.delete_obj(conn, account, SSH, key_id)

    # ------------------------------------------------------------------ signing certificates
    def upload_certificate(self, account: str, name: str, body: str) -> Row:
        from cryptography import x509  # about 60 ms: not at start-up (tests/unit/test_startup_imports.py)

        try:
            x509.load_pem_x509_certificate(body.encode())
        except ValueError:
            raise errors.malformed_certificate(body) from None
        with self.store.writing() as conn:
            user = self._user(account, name)
            if len(self._owned(account, CERT, name)) >= CERTS_PER_USER:
                raise errors.quota_exceeded("CertificatesPerUser", CERTS_PER_USER)
            cert = {"user": name.lower(), "UserName": user["name"], "CertificateId": new_id("", 32),
                    "CertificateBody": body, "Status": "Active", "UploadDate": now()}
            self.store.put_obj(conn, account, CERT, cert["CertificateId"], cert)
        return cert

    def certificates(self, account: str, name: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        self._user(account, name)
        certs = self._owned(account, CERT, name)
        return page(certs, params.get("Marker"), params.get("MaxItems"), lambda c: c["CertificateId"])

    def _certificate(self, account: str, name: str, cert_id: str) -> Row:
        self._user(account, name)
        cert = self.store.obj(account, CERT, cert_id)
        if cert is None or cert["user"] != name.lower():
            raise errors.certificate_not_found(cert_id)
        return cert

    def update_certificate(self, account: str, name: str, cert_id: str, status: str) -> None:
        with self.store.writing() as conn:
            cert = self._certificate(account, name, cert_id)
            self.store.put_obj(conn, account, CERT, cert_id, {**cert, "Status": status})

    def delete_certificate(self, account: str, name: str, cert_id: str) -> None:
        with self.store.writing() as conn:
            self._certificate(account, name, cert_id)
            self.store.delete_obj(conn, account, CERT, cert_id)

    # ------------------------------------------------------------------ MFA devices
    def create_virtual_mfa(self, account: str, params: dict[str, Any], partition: str) -> Row:
        path, name = params.get("Path", "/"), params["VirtualMFADeviceName"]
        serial = f"arn:{partition}:iam::{account}:mfa{path}{name}"
        if len(serial) > SERIAL_NUMBER_MAX:  # before the write: a refused name leaves no device behind
            raise errors.mfa_name_too_long(name, SERIAL_NUMBER_MAX - len(serial) + len(name))
        seed = "".join(secrets.choice(_BASE32) for _ in range(64))
        device = {"SerialNumber": serial, "seed": seed, "virtual": True, "user": None,
                  "tags": merge_tags([], params.get("Tags", []))}
        with self.store.writing() as conn:
            if self.store.obj(account, MFA, serial):
                raise errors.mfa_exists()
            self.store.put_obj(conn, account, MFA, serial, device)
        return device

    def enable_mfa(self, account: str, name: str, serial: str, first: str, second: str) -> None:
        """AWS enables a device only on two consecutive codes it shows (API_EnableMFADevice): a virtual
        device's are checked against its seed; a hardware device's cannot be here and are taken."""
        with self.store.writing() as conn:
            user = self._user(account, name)
            device = self.store.obj(account, MFA, serial)
            if device is None:  # a hardware device is registered as it is enabled
                device = {"SerialNumber": serial, "virtual": False, "user": None, "tags": []}
            if device["user"] is not None:
                raise errors.mfa_in_use()
            if device.get("seed") is not None and totp.consecutive(device["seed"], first, second) is None:
                raise errors.invalid_authentication_code()
            device.update(user=name.lower(), UserName=user["name"], EnableDate=now())
            self.store.put_obj(conn, account, MFA, serial, device)

    def deactivate_mfa(self, account: str, name: str, serial: str) -> None:
        with self.store.writing() as conn:
            self._user(account, name)
            device = self.store.obj(account, MFA, serial)
            if device is None or device["user"] != name.lower():
                raise errors.mfa_not_found(serial)
            if not device["virtual"]:
                self.store.delete_obj(conn, account, MFA, serial)
                return
            for field in ("UserName", "EnableDate"):
                device.pop(field, None)
            self.store.put_obj(conn, account, MFA, serial, {**device, "user": None})

    def delete_virtual_mfa(self, account: str, serial: str) -> None:
        with self.store.writing() as conn:
            device = self.store.obj(account, MFA, serial)
            if device is None or not device["virtual"]:
                raise errors.virtual_mfa_not_found(serial)
            if device["user"] is not None:
                raise errors.delete_conflict("MFA Device is in use by a user")  # UNCONFIRMED wording
            self.store.delete_obj(conn, account, MFA, serial)

    def mfa_devices(self, account: str, name: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        self._user(account, name)
        devices = self._owned(account, MFA, name)
        return page(devices, params.get("Marker"), params.get("MaxItems"), lambda d: d["SerialNumber"])

    def virtual_mfa_devices(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        status = params.get("AssignmentStatus", "Any")
        devices = [d for d in self.store.objs(account, MFA) if d["virtual"]
                   and (status == "Any" or (d["user"] is not None) == (status == "Assigned"))]
        return page(devices, params.get("Marker"), params.get("MaxItems"), lambda d: d["SerialNumber"])

    def user_mfa(self, account: str, name: str, serial: str) -> Row:
        """A device enabled for the user (GetMFADevice); AWS documents the call for FIDO security
        keys, which only the console registers: here any device the user has (UNCONFIRMED)."""
        self._user(account, name)
        device = self.store.obj(account, MFA, serial)
        if device is None or device["user"] != name.lower():
            raise errors.mfa_not_found(serial)
        return device

    def resync_mfa(self, account: str, name: str, serial: str, first: str, second: str) -> None:
        """Two consecutive codes of the device near now re-align it; a hardware device's codes cannot
        be checked here (no seed) and are taken (UNCONFIRMED)."""
        with self.store.writing() as conn:
            device = self.user_mfa(account, name, serial)
            if device.get("seed") is not None:
                counter = totp.consecutive(device["seed"], first, second)
                if counter is None:
                    raise errors.invalid_authentication_code()
                self.store.put_obj(conn, account, MFA, serial, {**device, "resynced_at": counter})

    def virtual_mfa(self, account: str, serial: str) -> Row:
        device = self.store.obj(account, MFA, serial)
        if device is None or not device["virtual"]:
            raise errors.virtual_mfa_not_found(serial)  # only virtual devices carry tags
        return device

    def tag_mfa(self, account: str, serial: str, tags: list[dict[str, str]] | None, drop: list[str] | None) -> None:
        with self.store.writing() as conn:
            device = self.virtual_mfa(account, serial)
            if tags is not None:
                kept = merge_tags(device["tags"], tags)
            else:
                kept = drop_tags(device["tags"], drop)
            self.store.put_obj(conn, account, MFA, serial, {**device, "tags": kept})

    def _owned(self, account: str, kind: str, name: str) -> list[Row]:
        return [o for o in self.store.objs(account, kind) if o.get("user") == name.lower()]


def _set_password(profile: Row, password: str) -> None:
    """Keep the new password's hash, and the last 24 (PasswordReusePrevention's most) in its history."""
    hashed = passwords.digest(password)
    profile["password"] = hashed
    profile["history"] = [*profile.get("history", []), hashed][-24:]
    profile["PasswordLastChanged"] = now()


def _ssh_fingerprint(body: str) -> str:
    """The MD5 fingerprint IAM shows for a public key, given in OpenSSH form ("ssh-rsa AAAA... comment")
    or PEM ("-----BEGIN PUBLIC KEY-----"), the two IAM takes."""
    from cryptography.hazmat.primitives import serialization  # not at start-up, as above

    try:
        if body.lstrip().startswith("-----BEGIN"):
            public = serialization.load_pem_public_key(body.strip().encode())
            body = public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
        parts = body.split()
        if len(parts) < 2 or not parts[0].startswith(("ssh-", "ecdsa-")):
            raise ValueError
        blob = base64.b64decode(parts[1], validate=True)
    except (ValueError, TypeError, binascii.Error):
        raise errors.invalid_public_key() from None
    digest = hashlib.md5(blob, usedforsecurity=False).hexdigest()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))
