"""Who signed a request: AWS's authentication, in AWS's words for each protocol.

- No signature at all: MissingAuthenticationToken(Exception). A malformed one: IncompleteSignature.
- A key onceflow issued (IAM users' access keys, STS sessions; `stack.credential_resolvers`):
  the signature is verified with its secret; a session key needs its own session token and is
  refused once its Expiration has passed (wall clock: --time-scale is for Step Functions only).
- A key onceflow issued that is gone (deleted, its user deleted; `aws_ids.is_issued_key`): refused
  as AWS refuses an unknown key, never taken for the root.
- Any other key: the account root (a 12-digit key selects that account), its signature not
  checked - unless the server runs with --enforce-iam: then only the configured root keys
  (--root-key, default test:test) are the root, verified with their secret, and every other key
  is refused as AWS refuses a key it does not know.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable

from onceflow.aws_ids import is_issued_key
from onceflow.config import Settings
from onceflow.context import Principal
from onceflow.credentials import Credential
from onceflow.wire import sigv4
from onceflow.wire.errors import EXPIRED, INVALID_TOKEN, MISMATCH, MISSING, auth_error
from onceflow.wire.request import Request
from onceflow.wire.sigv4 import Signed


class Authenticator:
    def __init__(self, settings: Settings, resolvers: list[Callable[[str], Credential | None]]) -> None:
        self.settings = settings
        self.resolvers = resolvers  # the stack's list: services add theirs during setup
        self.root_secrets = dict(settings.root_keys)
        self._roots: dict[str, Principal] = {}

    def principal(self, request: Request, signed: Signed | sigv4.Malformed | None, protocol: str,
                  service: str) -> Principal:
        """The principal a request acts as, or the ServiceError AWS answers instead. `signed` is
        what sigv4.read found in the request (the Malformed error when its signature is incomplete)."""
        if isinstance(signed, sigv4.Malformed):
            raise auth_error("incomplete", protocol, service, str(signed))
        if signed is None:
            raise auth_error("missing", protocol, service, MISSING)
        key = signed.scope.access_key
        credential = self._credential(key)
        if credential is not None:
            self._check_credential(credential, signed, request, protocol, service)
            return credential.principal
        if is_issued_key(key):  # deleted, or its user deleted: refused as AWS refuses it, never the root
            raise auth_error("invalid", protocol, service, INVALID_TOKEN)
        if self.settings.enforce_iam:
            secret = self.root_secrets.get(key)
            if secret is None:
                raise auth_error("invalid", protocol, service, INVALID_TOKEN)
            self._verify(secret, signed, request, protocol, service)
        return self._root(key)

    def secret_for(self, key: str) -> str | None:
        """The secret a key's signatures are checked with, or None where they are not checked (S3
        checks the signatures of an aws-chunked body's chunks with it)."""
        credential = self._credential(key)
        if credential is not None:
            return credential.secret
        return self.root_secrets.get(key) if self.settings.enforce_iam else None

    def _credential(self, key: str) -> Credential | None:
        for resolve in self.resolvers:
            credential = resolve(key)
            if credential is not None:
                return credential
        return None

    def _check_credential(self, credential: Credential, signed: Signed, request: Request, protocol: str,
                          service: str) -> None:
        self._check_session(credential, signed.session_token, protocol, service)
        self._verify(credential.secret, signed, request, protocol, service)

    @staticmethod
    def _check_session(credential: Credential, session_token: str | None, protocol: str, service: str) -> None:
        if not credential.active:
            raise auth_error("invalid", protocol, service, INVALID_TOKEN)
        expected_token = credential.session_token
        if expected_token is not None and not (
                session_token and hmac.compare_digest(session_token.encode(), expected_token.encode())):
            raise auth_error("invalid", protocol, service, INVALID_TOKEN)
        if credential.expires_at is not None and time.time() >= credential.expires_at:
            raise auth_error("expired", protocol, service, EXPIRED)

    def key_principal(self, key: str, session_token: str | None, protocol: str, service: str) -> Principal:
        """The principal of a key whose signature the caller checked itself with `secret_for(key)`
        (S3's older query-string signatures, which are not SigV4)."""
        credential = self._credential(key)
        if credential is not None:
            self._check_session(credential, session_token, protocol, service)
            return credential.principal
        if is_issued_key(key) or (self.settings.enforce_iam and key not in self.root_secrets):
            raise auth_error("invalid", protocol, service, INVALID_TOKEN)
        return self._root(key)

    @staticmethod
    def _verify(secret: str, signed: Signed, request: Request, protocol: str, service: str) -> None:
        try:
            sigv4.verify(secret, signed, request.method, request.raw_path, request.query_string, request.headers,
                         request.body)
        except sigv4.Stale as exc:
            raise auth_error("mismatch", protocol, service, str(exc)) from None
        except sigv4.Mismatch:
            raise auth_error("mismatch", protocol, service, MISMATCH) from None

    def _root(self, key: str) -> Principal:
        root = self._roots.get(key)
        if root is None:  # root principals are immutable: build one per access key, once
            account = key if len(key) == 12 and key.isdigit() else self.settings.account_id
            root = Principal.root(account, key)
            if len(self._roots) < 10_000:
                self._roots[key] = root
        return root
