"""The otpauth URI a virtual MFA device's QR code encodes, and the PNG it is drawn in."""

from __future__ import annotations

import struct

import segno

from onceflow.iam.mfa_qr import BORDER, SCALE, otpauth_uri, qr_png

SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def test_the_uri_names_the_device_at_the_account_and_carries_the_seed() -> None:
    assert otpauth_uri("phone", "123456789012", SEED) == f"otpauth://totp/phone@123456789012?secret={SEED}"


def test_characters_a_label_cannot_hold_are_escaped() -> None:
    assert otpauth_uri("my phone", "123456789012", "AB") == "otpauth://totp/my%20phone@123456789012?secret=AB"


def test_the_png_is_the_qr_symbol_with_its_quiet_zone() -> None:
    uri = otpauth_uri("phone", "123456789012", SEED)
    png = qr_png(uri)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # IHDR
    side = (segno.make(uri, error="m", micro=False).symbol_size(border=0)[0] + 2 * BORDER) * SCALE
    assert (width, height) == (side, side)
