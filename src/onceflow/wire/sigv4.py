"""SigV4: read a request's signature (Authorization header or presigned query string) and check it.

`read(headers, query_string)` finds the signature and its credential scope (access key, date,
region, service); the scope routes the call and picks the account and region. `verify(...)`
recomputes the signature from the request as AWS does (canonical request, string to sign, HMAC
chain) with the secret the caller's key is known by. The derived signing key depends only on
(secret, date, region, service), so it is cached: a warm check costs two SHA-256 and one HMAC.

The canonical path is the path as sent (botocore signs the raw, percent-encoded path, with dot
segments and repeated slashes removed), percent-encoded once more, as AWS does for every service
but S3. S3 signs the path exactly as sent, and checks the body against x-amz-content-sha256 itself
while it streams the body in (`wire/s3_path.py`): its bodies never sit here whole. A streamed
`aws-chunked` body signs each chunk after the seed signature (`chunk_signature`).

SigV4a (AWS4-ECDSA-P256-SHA256), which SDKs use for an EventBridge global endpoint (PutEvents with
EndpointId), signs the same canonical request with an ECDSA P-256 key derived from the secret; its scope
names no region (the signed X-Amz-Region-Set header does, "*" for any), so its Scope.region is "" for "*".
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, unquote

ALGORITHM = "AWS4-HMAC-SHA256"
ALGORITHM_A = "AWS4-ECDSA-P256-SHA256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
MAX_SKEW = timedelta(minutes=15)  # AWS refuses a signature dated further than this from its clock
_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request")
_PARTS = re.compile(r"(Credential|SignedHeaders|Signature)=([^,\s]*)")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_USUAL_A = re.compile(r"AWS4-ECDSA-P256-SHA256 Credential=([^/,\s]+)/(\d{8})/([^/,\s]+)/aws4_request, ?"
                      r"SignedHeaders=([^,\s]+), ?Signature=([0-9a-f]+)$")
_USUAL = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/,\s]+)/(\d{8})/([^/,\s]+)/([^/,\s]+)/aws4_request, ?"
                    r"SignedHeaders=([^,\s]+), ?Signature=([0-9a-f]+)$")


@dataclass(frozen=True)
class Scope:
    access_key: str
    region: str
    service: str


@dataclass(slots=True)  # not frozen: a frozen dataclass costs a microsecond more to build, per request
class Signed:
    """A request's SigV4 signature, as found in its Authorization header or its query string."""

    scope: Scope
    date: str  # yyyymmdd of the credential scope
    amz_date: str  # X-Amz-Date (or Date) of the request: yyyymmddThhmmssZ
    signed_headers: tuple[str, ...]
    signature: str
    session_token: str | None
    presigned: bool = False
    expires_s: int | None = None  # presigned URLs: X-Amz-Expires
    algorithm: str = ALGORITHM


class Malformed(Exception):
    """The Authorization header is not a complete SigV4 signature (AWS: IncompleteSignature)."""


class Mismatch(Exception):
    """The signature is not the one the secret gives (AWS: SignatureDoesNotMatch), or is stale."""


def credential_scope(headers: dict[str, str], query_string: str) -> Scope | None:
    """Only the scope (for routing); None when the request carries none or a malformed one."""
    try:
        signed = read(headers, query_string)
    except Malformed:
        m = _CREDENTIAL.search(headers.get("authorization", ""))
        return Scope(m.group(1), m.group(3), m.group(4)) if m else None
    return signed.scope if signed else None


def read(headers: dict[str, str], query_string: str) -> Signed | None:
    """The request's signature; None when it has none (no Authorization, no X-Amz-Credential)."""
    auth = headers.get("authorization")
    if auth is not None:
        return _from_header(auth, headers)
    if "X-Amz-Credential" in query_string:
        return _from_query(query_string)
    return None


def _from_header(auth: str, headers: dict[str, str]) -> Signed:
    amz_date = headers.get("x-amz-date") or ""
    m = _USUAL.match(auth)
    if m is not None and amz_date:  # what every SDK sends: one match instead of the general parse
        key, date, region, service, signed_headers, signature = m.groups()
        return Signed(Scope(key, region, service), date, amz_date, tuple(signed_headers.split(";")), signature,
                      headers.get("x-amz-security-token"))
    if auth.startswith(ALGORITHM_A + " "):
        return _from_sigv4a_header(auth, headers, amz_date)
    parts = dict(_PARTS.findall(auth)) if auth.startswith(ALGORITHM + " ") else {}
    missing = [f"Authorization header requires '{name}' parameter." for name in ("Credential", "Signature",
                                                                                  "SignedHeaders")
               if not parts.get(name)]
    if not amz_date and not headers.get("date"):
        missing.append("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    if missing:
        raise Malformed(" ".join(missing) + f" Authorization={auth}")
    credential = parts["Credential"].split("/")
    if len(credential) != 5 or credential[4] != "aws4_request" or not credential[0]:
        raise Malformed(f"Credential should be scoped with a valid terminator: 'aws4_request', not "
                        f"'{credential[-1]}'.")
    if not amz_date:
        amz_date = _http_date_to_amz(headers["date"])
    key, date, region, service, _ = credential
    return Signed(Scope(key, region, service), date, amz_date, tuple(parts["SignedHeaders"].split(";")),
                  parts["Signature"], headers.get("x-amz-security-token"))


def _from_sigv4a_header(auth: str, headers: dict[str, str], amz_date: str) -> Signed:
    m = _USUAL_A.match(auth)
    regions = headers.get("x-amz-region-set", "").strip()
    if m is None or not amz_date or not regions:
        raise Malformed(f"Authorization header is not a complete {ALGORITHM_A} signature (Credential, "
                        f"SignedHeaders, Signature, X-Amz-Date and X-Amz-Region-Set). Authorization={auth}")
    key, date, service, signed_headers, signature = m.groups()
    region = "" if regions == "*" else regions.split(",")[0].strip()
    return Signed(Scope(key, region, service), date, amz_date, tuple(signed_headers.split(";")), signature,
                  headers.get("x-amz-security-token"), algorithm=ALGORITHM_A)


def _from_query(query_string: str) -> Signed:
    params: dict[str, str] = {}
    for pair in query_string.split("&"):
        name, _, value = pair.partition("=")
        if name.startswith("X-Amz-"):
            params[unquote(name)] = unquote(value)
    credential = params.get("X-Amz-Credential", "").split("/")
    needed = ("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date")
    missing = [name for name in needed if not params.get(name)]
    if missing or len(credential) != 5 or credential[4] != "aws4_request":
        raise Malformed("AWS query-string parameters must include " + ", ".join(f"'{n}'" for n in needed)
                        + ". Re-examine the query-string parameters.")
    try:
        expires = int(params.get("X-Amz-Expires", "900"))
    except ValueError:
        raise Malformed("X-Amz-Expires should be a number") from None
    key, date, region, service, _ = credential
    return Signed(Scope(key, region, service), date, params["X-Amz-Date"],
                  tuple(params["X-Amz-SignedHeaders"].split(";")), params["X-Amz-Signature"],
                  params.get("X-Amz-Security-Token"), presigned=True, expires_s=expires)


def _http_date_to_amz(value: str) -> str:
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(value).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    except (TypeError, ValueError):
        return ""


# ---------------------------------------------------------------------- verification
_KEYS: dict[tuple[str, str, str, str], bytes] = {}


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    """HMAC("AWS4" + secret, date) -> region -> service -> "aws4_request", cached per scope."""
    cache_key = (secret, date, region, service)
    key = _KEYS.get(cache_key)
    if key is None:
        key = ("AWS4" + secret).encode()
        for part in (date, region, service, "aws4_request"):
            key = hmac.digest(key, part.encode(), "sha256")
        if len(_KEYS) >= 4096:  # one entry per key, day, region and service: clear rather than grow
            _KEYS.clear()
        _KEYS[cache_key] = key
    return key


def canonical_query(query_string: str, presigned: bool) -> str:
    """Every parameter decoded and re-encoded the strict SigV4 way, sorted by name then value (the
    presigned signature itself left out)."""
    if not query_string:
        return ""
    pairs = []
    for pair in query_string.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        if presigned and name == "X-Amz-Signature":
            continue
        pairs.append((quote(unquote(name), safe="-_.~"), quote(unquote(value), safe="-_.~")))
    pairs.sort()
    return "&".join(f"{k}={v}" for k, v in pairs)


def canonical_path(raw_path: str, service: str = "") -> str:
    if service == "s3":
        return raw_path or "/"
    return quote(_remove_dot_segments(raw_path) or "/", safe="/~")


def _remove_dot_segments(path: str) -> str:
    if "/." not in path and "//" not in path:
        return path  # the usual path has nothing to remove
    out: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if out:
                out.pop()
        elif segment and segment != ".":
            out.append(segment)
    tail = "/" if path.endswith("/") and out else ""
    return ("/" if path.startswith("/") else "") + "/".join(out) + tail


def canonical_request(method: str, raw_path: str, query_string: str, headers: dict[str, str],
                      signed: Signed, payload_hash: str) -> str:
    lines = []
    for name in signed.signed_headers:
        value = headers.get(name)
        if value is None:
            raise Mismatch(f"signed header {name} is missing")
        lines.append(f"{name}:{' '.join(value.split())}")
    return "\n".join((method.upper(), canonical_path(raw_path, signed.scope.service),
                      canonical_query(query_string, signed.presigned), "\n".join(lines) + "\n",
                      ";".join(signed.signed_headers), payload_hash))


def signature(secret: str, signed: Signed, request_hash: str) -> str:
    scope = signed.scope
    string_to_sign = (f"{ALGORITHM}\n{signed.amz_date}\n{signed.date}/{scope.region}/{scope.service}/aws4_request\n"
                      f"{request_hash}")
    key = signing_key(secret, signed.date, scope.region, scope.service)
    return hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()


def verify(secret: str, signed: Signed, method: str, raw_path: str, query_string: str, headers: dict[str, str],
           body: bytes, now: datetime | None = None) -> None:
    """Raise Mismatch unless `signed` is the signature `secret` gives this request, at a time AWS
    would accept (within 15 minutes of the clock; a presigned URL until it expires)."""
    check_time(signed, now or datetime.now(UTC))
    claimed = headers.get("x-amz-content-sha256")
    s3 = signed.scope.service == "s3"  # S3 checks the body against the claimed hash as it streams in
    if s3 and signed.presigned:
        claimed = claimed or UNSIGNED_PAYLOAD
    if claimed is not None and not s3 and claimed != UNSIGNED_PAYLOAD and _HEX64.fullmatch(claimed):
        if hashlib.sha256(body).hexdigest() != claimed:
            raise Mismatch("the body does not match x-amz-content-sha256")
    if claimed is not None:
        hashes = [claimed]
    elif signed.presigned:  # botocore's presigner signs an unsigned payload; other SDKs hash the body
        hashes = [UNSIGNED_PAYLOAD, hashlib.sha256(body).hexdigest()]
    else:
        hashes = [hashlib.sha256(body).hexdigest()]
    for payload_hash in hashes:
        request = canonical_request(method, raw_path, query_string, headers, signed, payload_hash)
        if signed.algorithm == ALGORITHM_A:
            if _sigv4a_holds(secret, signed, hashlib.sha256(request.encode()).hexdigest()):
                return
            continue
        expected = signature(secret, signed, hashlib.sha256(request.encode()).hexdigest())
        if hmac.compare_digest(expected.encode(), signed.signature.encode()):  # bytes: any text the client sent
            return
    raise Mismatch("signature")


_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_A_KEYS: dict[tuple[str, str], Any] = {}


def sigv4a_public_key(secret: str, access_key: str) -> Any:
    """The P-256 key SigV4a signs with, derived from the secret as AWS's SDKs derive it: NIST SP 800-108
    KDF in counter mode over HMAC-SHA256 keyed "AWS4A" + secret, label AWS4-ECDSA-P256-SHA256, context
    the access key id and a counter byte, 256 bits out; the first candidate at most n - 2, plus one, is
    the private scalar. Cached per key (the derivation is an EC point multiplication)."""
    cached = _A_KEYS.get((secret, access_key))
    if cached is not None:
        return cached
    from cryptography.hazmat.primitives.asymmetric import ec  # not at start-up: about 20 ms

    input_key = ("AWS4A" + secret).encode()
    for counter in range(1, 255):
        fixed = (b"\x00\x00\x00\x01" + ALGORITHM_A.encode() + b"\x00" + access_key.encode() + bytes([counter])
                 + b"\x00\x00\x01\x00")
        candidate = int.from_bytes(hmac.digest(input_key, fixed, "sha256"), "big")
        if candidate <= _P256_ORDER - 2:
            public = ec.derive_private_key(candidate + 1, ec.SECP256R1()).public_key()
            if len(_A_KEYS) >= 256:
                _A_KEYS.clear()
            _A_KEYS[(secret, access_key)] = public
            return public
    raise Mismatch("no SigV4a key for this secret")


def _sigv4a_holds(secret: str, signed: Signed, request_hash: str) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    string_to_sign = (f"{ALGORITHM_A}\n{signed.amz_date}\n{signed.date}/{signed.scope.service}/aws4_request\n"
                      f"{request_hash}")
    try:
        der = bytes.fromhex(signed.signature)
        key = sigv4a_public_key(secret, signed.scope.access_key)
        key.verify(der, string_to_sign.encode(), ec.ECDSA(hashes.SHA256()))
    except (ValueError, InvalidSignature):
        return False
    return True


def chunk_signature(secret: str, signed: Signed, previous: str, chunk_hash: str, trailer: bool = False) -> str:
    """The signature of one chunk of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body (or of its trailer),
    chained to the previous one (the seed signature for the first chunk)."""
    scope = signed.scope
    kind = "AWS4-HMAC-SHA256-TRAILER" if trailer else "AWS4-HMAC-SHA256-PAYLOAD"
    lines = [kind, signed.amz_date, f"{signed.date}/{scope.region}/{scope.service}/aws4_request", previous]
    lines += [chunk_hash] if trailer else [EMPTY_SHA256, chunk_hash]
    key = signing_key(secret, signed.date, scope.region, scope.service)
    return hmac.new(key, "\n".join(lines).encode(), hashlib.sha256).hexdigest()


class Stale(Mismatch):
    """The signature is dated too far from now, or the presigned URL has expired."""


def check_time(signed: Signed, now: datetime) -> None:
    when = _parse_amz_date(signed.amz_date)
    if when is None:
        raise Stale(f"Date must be in ISO-8601 'basic format'. Got '{signed.amz_date}'. See "
                    "http://en.wikipedia.org/wiki/ISO_8601")
    stamp = _stamp
    if signed.presigned:
        lifetime = timedelta(seconds=signed.expires_s or 0)
        if now > when + lifetime:
            span = "15 min." if lifetime == MAX_SKEW else f"{signed.expires_s} sec."
            raise Stale(f"Signature expired: {signed.amz_date} is now earlier than {stamp(now - lifetime)} "
                        f"({stamp(now)} - {span})")
        if when > now + MAX_SKEW:
            raise Stale(f"Signature not yet current: {signed.amz_date} is still later than "
                        f"{stamp(now + MAX_SKEW)} ({stamp(now)} + 15 min.)")
        return
    if when < now - MAX_SKEW:
        raise Stale(f"Signature expired: {signed.amz_date} is now earlier than {stamp(now - MAX_SKEW)} "
                    f"({stamp(now)} - 15 min.)")
    if when > now + MAX_SKEW:
        raise Stale(f"Signature not yet current: {signed.amz_date} is still later than {stamp(now + MAX_SKEW)} "
                    f"({stamp(now)} + 15 min.)")


def _parse_amz_date(value: str) -> datetime | None:
    """yyyymmddThhmmssZ (strptime costs more than the rest of a signature check)."""
    if len(value) != 16 or value[8] != "T" or value[15] != "Z" or not (value[:8] + value[9:15]).isdigit():
        return None
    try:
        return datetime(int(value[:4]), int(value[4:6]), int(value[6:8]), int(value[9:11]), int(value[11:13]),
                        int(value[13:15]), tzinfo=UTC)
    except ValueError:
        return None


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%SZ")
