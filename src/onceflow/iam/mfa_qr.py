"""The QR code of a new virtual MFA device (CreateVirtualMFADevice's QRCodePNG): a PNG of the
otpauth URI an authenticator app scans, made by segno (pure Python).

AWS's docs give the URI as otpauth://totp/$virtualMFADeviceName@$AccountName?secret=$Base32String,
AccountName being the user name if set, otherwise the account id; a device is created before it is
assigned to a user, so it names the account. The image's module size and border are ours
(UNCONFIRMED: what AWS's PNGs measure); the text they encode is the documented one."""

from __future__ import annotations

import io
from urllib.parse import quote

SCALE = 4  # pixels per module
BORDER = 4  # the quiet zone QR codes need, in modules


def otpauth_uri(device_name: str, account_name: str, seed: str) -> str:
    label = quote(f"{device_name}@{account_name}", safe="@")
    return f"otpauth://totp/{label}?secret={seed}"


def qr_png(uri: str) -> bytes:
    import segno  # a tenth of a second to import: only when a device is created

    out = io.BytesIO()
    segno.make(uri, error="m", micro=False).save(out, kind="png", scale=SCALE, border=BORDER)
    return out.getvalue()
