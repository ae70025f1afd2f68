"""GetFunction's `Code.Location`: a presigned URL, valid for 10 minutes as AWS's is, that serves
the function's zip (`curl -o code.zip "$(aws lambda get-function ... --query Code.Location)"`).

The signature is an HMAC of the code's hash and the URL's date under a key made when the server
starts, so a URL is good for that server only, and only until it expires.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from urllib.parse import parse_qs

PATH_PREFIX = "/_onceflow/lambda-code/"
EXPIRES_S = 600
_PATH = re.compile(r"/_onceflow/lambda-code/([0-9a-f]{64})\.zip")


class CodeLocations:
    def __init__(self, endpoint_url: str, load: Callable[[str], bytes]) -> None:
        self.endpoint_url = endpoint_url
        self.load = load  # sha256 hex -> the zip
        self._key = secrets.token_bytes(32)

    def url(self, sha256_hex: str, now: float | None = None) -> str:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now or time.time()))
        return (f"{self.endpoint_url}{PATH_PREFIX}{sha256_hex}.zip?X-Amz-Date={stamp}&X-Amz-Expires={EXPIRES_S}"
                f"&X-Amz-Signature={self._sign(sha256_hex, stamp)}")  # fmt: skip

    def serve(self, path: str, query_string: str) -> tuple[int, bytes, str]:
        """(status, body, content type) for a request to a code URL."""
        found = _PATH.fullmatch(path)
        query = {k: v[0] for k, v in parse_qs(query_string).items()}
        if found is None:
            return 404, _error("NoSuchKey", "The specified key does not exist."), "application/xml"
        sha, stamp = found.group(1), query.get("X-Amz-Date", "")
        if not hmac.compare_digest(self._sign(sha, stamp), query.get("X-Amz-Signature", "")):
            return 403, _error("SignatureDoesNotMatch", "The request signature we calculated does not match the "
                               "signature you provided."), "application/xml"  # fmt: skip
        try:
            issued = time.mktime(time.strptime(stamp, "%Y%m%dT%H%M%SZ")) - time.timezone
        except ValueError:
            issued = 0.0
        if time.time() > issued + EXPIRES_S:
            return 403, _error("AccessDenied", "Request has expired"), "application/xml"
        try:
            return 200, self.load(sha), "application/zip"
        except KeyError:
            return 404, _error("NoSuchKey", "The specified key does not exist."), "application/xml"

    def _sign(self, sha: str, stamp: str) -> str:
        return hmac.new(self._key, f"{sha}\n{stamp}".encode(), hashlib.sha256).hexdigest()


def _error(code: str, message: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>'
            "</Error>").encode()
