"""pages.py: the one page-token codec - what goes in comes out, anything else is the service's error."""

from __future__ import annotations

import base64

import pytest

from onceflow import pages


class Refused(Exception):
    pass


@pytest.mark.parametrize("value", [0, 41, "role-name", ["f", 12, "x/y"], {"k": {"S": "é"}}])
def test_what_is_encoded_decodes(value: object) -> None:
    token = pages.encode(value, "t")
    assert "=" not in token and "+" not in token and "/" not in token  # travels in URLs and forms as it is
    assert pages.decode(token, Refused, "t") == value
    assert pages.decode(pages.encode(value), Refused) == value


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


@pytest.mark.parametrize("token", ["not base64!", _b64(b"\xff\xfe"), _b64(b"not json"), _b64(b'["u",1]'),
                                   _b64(b'["t",1,2]'), _b64(b"7")])
def test_anything_else_is_the_services_refusal(token: str) -> None:
    with pytest.raises(Refused):
        pages.decode(token, Refused, "t")


def test_offsets_round_trip_and_a_token_naming_no_offset_is_refused() -> None:
    assert pages.offset_of(None, Refused) == 0
    assert pages.offset_of(pages.offset_token(250), Refused) == 250
    for bad in (pages.encode(-1, "o"), pages.encode(True, "o"), pages.encode("3", "o"), pages.encode(3, "x")):
        with pytest.raises(Refused):
            pages.offset_of(bad, Refused)
