"""The signing keys of OpenID Connect providers whose tokens AssumeRoleWithWebIdentity verifies.

AWS fetches a provider's JSON Web Key Set (its openid-configuration's jwks_uri) and refuses a token
its keys do not sign. onceflow fetches nothing: `serve --oidc-keys ISSUER=FILE` gives an issuer's key
set as a file (the document its jwks_uri serves), and that issuer's tokens are then verified as AWS
verifies them; an issuer given no keys keeps having its tokens' signatures accepted unread
(sts/federation.py). RS256/384/512, PS256/384/512 and ES256/384/512 are the algorithms read.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from onceflow.iam.common import issuer
from onceflow.sts import errors

_HASHES: dict[str, Callable[[], hashes.HashAlgorithm]] = {"256": hashes.SHA256, "384": hashes.SHA384,
                                                          "512": hashes.SHA512}
_CURVES: dict[str, type[ec.EllipticCurve]] = {"P-256": ec.SECP256R1, "P-384": ec.SECP384R1, "P-521": ec.SECP521R1}
# The model's words for InvalidIdentityToken (UNCONFIRMED that AWS answers a bad signature with them).
NOT_VALIDATED = ("The web identity token that was passed could not be validated by Amazon Web Services. Get a new "
                 "identity token from the identity provider and then retry the request.")


@dataclass(frozen=True)
class SigningKey:
    kid: str | None
    kty: str
    key: rsa.RSAPublicKey | ec.EllipticCurvePublicKey


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _int(text: Any) -> int:
    if not isinstance(text, str):
        raise ValueError("a key member that should be base64url text is not")
    return int.from_bytes(_b64url(text), "big")


def parse_jwks(document: Any) -> tuple[SigningKey, ...]:
    """The RSA and EC public keys of a JSON Web Key Set ({"keys": [...]}); other key types are skipped.
    ValueError for a document that is no key set or holds an unreadable key."""
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise ValueError('a JSON Web Key Set is an object with a "keys" array')
    out = []
    for jwk in keys:
        if not isinstance(jwk, dict) or jwk.get("use", "sig") != "sig":
            continue
        kid = jwk.get("kid") if isinstance(jwk.get("kid"), str) else None
        try:
            if jwk.get("kty") == "RSA":
                out.append(SigningKey(kid, "RSA", rsa.RSAPublicNumbers(_int(jwk.get("e")), _int(jwk.get("n")))
                                      .public_key()))
            elif jwk.get("kty") == "EC" and jwk.get("crv") in _CURVES:
                numbers = ec.EllipticCurvePublicNumbers(_int(jwk.get("x")), _int(jwk.get("y")), _CURVES[jwk["crv"]]())
                out.append(SigningKey(kid, "EC", numbers.public_key()))
        except (binascii.Error, ValueError) as e:
            raise ValueError(f"key {kid or '(no kid)'} cannot be read: {e}") from None
    return tuple(out)


def load_jwks(path: Path) -> tuple[SigningKey, ...]:
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
    return parse_jwks(document)


def _verifies(key: SigningKey, alg: str, signed: bytes, signature: bytes) -> bool:
    family, bits = alg[:2], alg[2:]
    if bits not in _HASHES:
        return False
    digest = _HASHES[bits]()
    try:
        if family in ("RS", "PS") and isinstance(key.key, rsa.RSAPublicKey):
            pad = padding.PKCS1v15() if family == "RS" else padding.PSS(padding.MGF1(_HASHES[bits]()),
                                                                       padding.PSS.DIGEST_LENGTH)
            key.key.verify(signature, signed, pad, digest)
            return True
        if family == "ES" and isinstance(key.key, ec.EllipticCurvePublicKey):
            # A JWS ECDSA signature is r then s, each the curve's size (RFC 7518 3.4), not DER.
            half = len(signature) // 2
            if half == 0 or len(signature) % 2:
                return False
            der = encode_dss_signature(int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big"))
            key.key.verify(der, signed, ec.ECDSA(digest))
            return True
    except InvalidSignature:
        return False
    return False


class WebIdentityKeys:
    """Each configured issuer's keys, by the issuer as provider ARNs name it (the URL without https://)."""

    def __init__(self, configured: Iterable[tuple[str, str]] = ()) -> None:
        self._keys = {issuer(url): load_jwks(Path(path)) for url, path in configured}

    def verify(self, token: str, iss: str) -> None:
        """Refuse a token of an issuer with configured keys that none of them signs (InvalidIdentityToken);
        a token of any other issuer passes unread."""
        keys = self._keys.get(issuer(iss))
        if keys is None:
            return
        head, _, rest = token.partition(".")
        payload, _, signature = rest.partition(".")
        try:
            header = json.loads(_b64url(head))
            sig = _b64url(signature)
        except (ValueError, binascii.Error):
            raise errors.invalid_identity_token(errors.NOT_JWT) from None
        alg, kid = (header.get("alg"), header.get("kid")) if isinstance(header, dict) else (None, None)
        if not isinstance(alg, str):
            raise errors.invalid_identity_token(NOT_VALIDATED)
        candidates = [k for k in keys if kid is None or k.kid == kid]
        signed = f"{head}.{payload}".encode()
        if not any(_verifies(k, alg, signed, sig) for k in candidates):
            raise errors.invalid_identity_token(NOT_VALIDATED)
