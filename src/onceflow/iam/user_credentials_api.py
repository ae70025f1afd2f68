"""Login profile, SSH public key, signing certificate and MFA device operations (query protocol)."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam import mfa_qr
from onceflow.iam.api import Out, _date, paged, tags_out, user_out
from onceflow.iam.errors import not_an_iam_user, user_name_needed
from onceflow.iam.store import Row
from onceflow.iam.user_credentials import UserCredentials
from onceflow.registry import operation

_DATES = ("CreateDate", "UploadDate", "EnableDate")


def _out(row: Row, fields: tuple[str, ...]) -> Out:
    return {f: (_date(row[f]) if f in _DATES else row[f]) for f in fields if row.get(f) is not None}


def _user(ctx: RequestContext, params: dict[str, Any]) -> str:
    """The named user, or the calling user when the operation lets the name be left out."""
    name = params.get("UserName") or (ctx.principal.name if ctx.principal.kind == "user" else None)
    if name is None:
        raise user_name_needed()
    return str(name)


PROFILE = ("UserName", "CreateDate", "PasswordResetRequired")
SSH_META = ("UserName", "SSHPublicKeyId", "Status", "UploadDate")
SSH_FULL = ("UserName", "SSHPublicKeyId", "Fingerprint", "SSHPublicKeyBody", "Status", "UploadDate")
CERT = ("UserName", "CertificateId", "CertificateBody", "Status", "UploadDate")


class UserCredentialsApi:
    def __init__(self, creds: UserCredentials) -> None:
        self.creds = creds

    # ------------------------------------------------------------------ login profiles
    @operation("CreateLoginProfile")
    def create_login_profile(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        profile = self.creds.create_login_profile(ctx.account, _user(ctx, params),
                                                  bool(params.get("PasswordResetRequired")), params.get("Password"))
        return {"LoginProfile": _out(profile, PROFILE)}

    @operation("GetLoginProfile")
    def get_login_profile(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"LoginProfile": _out(self.creds.login_profile(ctx.account, _user(ctx, params)), PROFILE)}

    @operation("UpdateLoginProfile")
    def update_login_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.update_login_profile(ctx.account, params["UserName"], params.get("PasswordResetRequired"),
                                        params.get("Password"))

    @operation("ChangePassword")
    def change_password(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        if ctx.principal.kind != "user":
            raise not_an_iam_user()
        self.creds.change_password(ctx.account, ctx.principal.name, params["OldPassword"], params["NewPassword"])

    @operation("DeleteLoginProfile")
    def delete_login_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.delete_login_profile(ctx.account, _user(ctx, params))

    # ------------------------------------------------------------------ SSH public keys
    @operation("UploadSSHPublicKey")
    def upload_ssh_public_key(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        key = self.creds.upload_ssh_key(ctx.account, params["UserName"], params["SSHPublicKeyBody"])
        return {"SSHPublicKey": _out(key, SSH_FULL)}

    @operation("GetSSHPublicKey")
    def get_ssh_public_key(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        key = self.creds.ssh_key(ctx.account, params["UserName"], params["SSHPublicKeyId"])
        return {"SSHPublicKey": _out(key, SSH_FULL)}

    @operation("ListSSHPublicKeys")
    def list_ssh_public_keys(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        keys, marker = self.creds.ssh_keys(ctx.account, params.get("UserName"), params)
        return paged("SSHPublicKeys", [_out(k, SSH_META) for k in keys], marker)

    @operation("UpdateSSHPublicKey")
    def update_ssh_public_key(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.update_ssh_key(ctx.account, params["UserName"], params["SSHPublicKeyId"], params["Status"])

    @operation("DeleteSSHPublicKey")
    def delete_ssh_public_key(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.delete_ssh_key(ctx.account, params["UserName"], params["SSHPublicKeyId"])

    # ------------------------------------------------------------------ signing certificates
    @operation("UploadSigningCertificate")
    def upload_signing_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        cert = self.creds.upload_certificate(ctx.account, _user(ctx, params), params["CertificateBody"])
        return {"Certificate": _out(cert, CERT)}

    @operation("ListSigningCertificates")
    def list_signing_certificates(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        certs, marker = self.creds.certificates(ctx.account, _user(ctx, params), params)
        return paged("Certificates", [_out(c, CERT) for c in certs], marker)

    @operation("UpdateSigningCertificate")
    def update_signing_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.update_certificate(ctx.account, _user(ctx, params), params["CertificateId"], params["Status"])

    @operation("DeleteSigningCertificate")
    def delete_signing_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.delete_certificate(ctx.account, _user(ctx, params), params["CertificateId"])

    # ------------------------------------------------------------------ MFA devices
    @operation("CreateVirtualMFADevice")
    def create_virtual_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        device = self.creds.create_virtual_mfa(ctx.account, params, partition(ctx.region))
        uri = mfa_qr.otpauth_uri(params["VirtualMFADeviceName"], ctx.account, device["seed"])
        out: Out = {"SerialNumber": device["SerialNumber"], "Base32StringSeed": device["seed"].encode(),
                    "QRCodePNG": mfa_qr.qr_png(uri)}
        if device["tags"]:
            out["Tags"] = device["tags"]
        return {"VirtualMFADevice": out}

    @operation("EnableMFADevice")
    def enable_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.enable_mfa(ctx.account, params["UserName"], params["SerialNumber"],
                              params["AuthenticationCode1"], params["AuthenticationCode2"])

    @operation("DeactivateMFADevice")
    def deactivate_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.deactivate_mfa(ctx.account, _user(ctx, params), params["SerialNumber"])

    @operation("DeleteVirtualMFADevice")
    def delete_virtual_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.delete_virtual_mfa(ctx.account, params["SerialNumber"])

    @operation("ListMFADevices")
    def list_mfa_devices(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        devices, marker = self.creds.mfa_devices(ctx.account, _user(ctx, params), params)
        return paged("MFADevices", [_out(d, ("UserName", "SerialNumber", "EnableDate")) for d in devices], marker)

    @operation("ListVirtualMFADevices")
    def list_virtual_mfa_devices(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        devices, marker = self.creds.virtual_mfa_devices(ctx.account, params)
        return paged("VirtualMFADevices", [self._virtual(ctx, d) for d in devices], marker)

    @operation("GetMFADevice")
    def get_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        device = self.creds.user_mfa(ctx.account, _user(ctx, params), params["SerialNumber"])
        return _out(device, ("UserName", "SerialNumber", "EnableDate"))

    @operation("ResyncMFADevice")
    def resync_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.resync_mfa(ctx.account, params["UserName"], params["SerialNumber"],
                              params["AuthenticationCode1"], params["AuthenticationCode2"])

    @operation("TagMFADevice")
    def tag_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.tag_mfa(ctx.account, params["SerialNumber"], params["Tags"], None)

    @operation("UntagMFADevice")
    def untag_mfa_device(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.creds.tag_mfa(ctx.account, params["SerialNumber"], None, params["TagKeys"])

    @operation("ListMFADeviceTags")
    def list_mfa_device_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.creds.virtual_mfa(ctx.account, params["SerialNumber"])["tags"], params)

    def _virtual(self, ctx: RequestContext, device: Row) -> Out:
        out: Out = {"SerialNumber": device["SerialNumber"]}
        if device["user"] is not None:
            user = self.creds.store.user(ctx.account, device["user"])
            if user is not None:
                out["User"] = user_out(user)
            out["EnableDate"] = _date(device["EnableDate"])
        return out

