"""STS: temporary credentials for role sessions and session tokens, and who a caller is.

Every issued access key (ASIA...) is remembered with the session it belongs to, so a later call
signed with it acts as that session (the credential resolver below).
"""

from __future__ import annotations

import base64
import re
import secrets
import string
from datetime import UTC, datetime, timedelta
from typing import Any

from onceflow.aws_ids import new_key_id
from onceflow.config import Settings
from onceflow.context import Principal
from onceflow.credentials import Credential
from onceflow.iam.common import partition_of, stable_id, validate
from onceflow.iam.policy import Policy, stored
from onceflow.sts import errors, session_tags
from onceflow.sts.ports import Directory, Roles, Row
from onceflow.sts.store import SessionStore

_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):role/(?:.*/)?([\w+=,.@-]+)")
_SECRET_CHARS = string.ascii_letters + string.digits + "+/"
SERVICE_SESSION_S = 12 * 3600


def assumed_role_arn(account: str, role_name: str, session_name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:sts::{account}:assumed-role/{role_name}/{session_name}"


class StsService:
    def __init__(self, store: Directory, iam: Roles, settings: Settings, sessions: SessionStore) -> None:
        self.store = store
        self.sessions = sessions
        self.iam = iam
        self.settings = settings
        self._credentials: dict[str, Credential] = {}  # sessions never change: cache the resolution
        self._session_policies: dict[str, tuple[int, list[Policy] | None]] = {}
        self._current: dict[str, tuple[int, bool]] = {}
        self._tags: dict[str, session_tags.Tags] = {}

    # ------------------------------------------------------------------ issuing
    def issue_role_session(
        self,
        account: str,
        role_arn: str,
        session_name: str,
        duration_s: int = SERVICE_SESSION_S,
        policy: str | None = None,
        policy_arns: list[str] | None = None,
        tags: session_tags.Tags | None = None,
        transitive: list[str] | None = None,
    ) -> dict[str, Any]:
        """Credentials for a session of `role_arn`, without a trust check (for AWS services acting
        for a user, e.g. Lambda running a function as its execution role). The default lifetime is
        STS's longest: a warm Lambda worker keeps the credentials it started with, and sessions
        now expire for real (the wire layer refuses an expired one)."""
        role = self.store.role_by_arn(role_arn)
        m = _ROLE_ARN.fullmatch(role_arn)
        role_name = role["name"] if role else (m.group(2) if m else role_arn.rsplit("/", 1)[-1])
        role_id = _role_id(role_arn, role)
        session = {
            "kind": "assumed-role",
            "account": account,
            "arn": assumed_role_arn(account, role_name, session_name, partition_of(role_arn)),
            "name": role_name,
            "role_arn": role_arn,
            "session_name": session_name,
            "user_id": f"{role_id}:{session_name}",
        }
        if policy is not None or policy_arns:
            session["session_policy"] = policy
            session["session_policy_arns"] = policy_arns or []
        if tags:
            session["tags"], session["transitive"] = tags, transitive or []
        return self._issue(session, duration_s)

    def issue(self, session: Row, duration_s: int) -> dict[str, Any]:
        """Credentials for a session described by `session` (federation builds its own)."""
        return self._issue(session, duration_s)

    def _issue(self, session: Row, duration_s: int) -> dict[str, Any]:
        expiration = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=duration_s)
        creds = {
            "AccessKeyId": new_key_id("ASIA"),
            "SecretAccessKey": "".join(secrets.choice(_SECRET_CHARS) for _ in range(40)),
            "SessionToken": "IQoJb3JpZ2luX2VjE" + base64.b64encode(secrets.token_bytes(300)).decode(),
            "Expiration": expiration,
        }
        self.sessions.insert_session({**session, **creds, "Expiration": expiration.isoformat()})
        return creds

    def assume_role(self, caller: Principal, params: dict[str, Any]) -> dict[str, Any]:
        role_arn, session_name = params["RoleArn"], params["RoleSessionName"]
        if not _ROLE_ARN.fullmatch(role_arn):
            raise errors.invalid_role_arn(role_arn)
        if caller.kind == "root" and self.settings.enforce_iam:
            # AWS refuses this outright; the lenient default mode lets plain keys assume roles.
            raise errors.root_may_not_assume()
        role = self.store.role_by_arn(role_arn)
        denied = errors.may_not_assume(caller.arn, role_arn)
        if role is None:
            raise denied
        # A role of another account is assumed only if its trust policy trusts the caller, whatever
        # the mode: that account has said so or not.
        foreign = role["account"] != caller.account
        context = {k: params[name] for k, name in (("sts:ExternalId", "ExternalId"),
                                                   ("sts:RoleSessionName", "RoleSessionName")) if name in params}
        checked = foreign or self._checks_trust(caller)
        if checked and not self._trusted(caller, role, context):
            raise denied
        chain = caller.kind == "assumed-role" and caller.access_key
        inherited = (self.sessions.session(caller.access_key) if chain and caller.access_key else None) or {}
        tags, transitive = session_tags.requested(params, inherited.get("tags", {}), inherited.get("transitive", []))
        # Passing tags is an action of its own the trust policy must allow (sts:TagSession).
        if params.get("Tags") and checked and not self._trusted(caller, role, context, "sts:TagSession"):
            raise errors.not_authorized_on("sts:TagSession", caller.arn, role_arn)
        creds, user = self.role_session(role, session_name, params, tags, transitive)
        return {"Credentials": creds, "AssumedRoleUser": user}

    def role_session(self, role: Any, session_name: str, params: dict[str, Any],
                     tags: session_tags.Tags | None = None,
                     transitive: list[str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
        """A session of `role` (a row of the IAM store) once the caller may assume it: the
        duration, session policy and policy ARNs of AssumeRole* checked, the credentials and the
        AssumedRoleUser. Every AssumeRole* call ends here."""
        duration = params.get("DurationSeconds", 3600)
        if duration > role["max_session"]:
            raise errors.duration_over_role_maximum()
        policy = params.get("Policy")
        if policy is not None:
            validate(policy)
        policy_arns = [d["arn"] for d in params.get("PolicyArns", [])]
        for arn in policy_arns:
            self.iam.policy(role["account"], arn)
        creds = self.issue_role_session(role["account"], role["arn"], session_name, duration, policy, policy_arns,
                                        tags, transitive)
        user = {
            "AssumedRoleId": f"{role['role_id']}:{session_name}",
            "Arn": assumed_role_arn(role["account"], role["name"], session_name, partition_of(role["arn"])),
        }
        return creds, user

    def _checks_trust(self, caller: Principal) -> bool:
        # The account root of a default (lenient) server may assume any of its roles, so scripts that
        # use plain keys work; role sessions, and users under --enforce-iam, need the trust policy.
        return caller.kind == "assumed-role" or self.settings.enforce_iam

    def _trusted(self, caller: Principal, role: Any, context: dict[str, str], action: str = "sts:AssumeRole") -> bool:
        # The account root's ARN names the caller's partition as the role's ARN does.
        root = f"arn:{partition_of(role['arn'])}:iam::{caller.account}:root"
        idents = [root if caller.kind == "root" else caller.arn] + ([caller.role_arn] if caller.role_arn else [])
        return any(self.iam.role_trusts(role["account"], role["arn"], ("AWS", ident), context, action)
                   for ident in idents)

    def get_session_token(self, caller: Principal, params: dict[str, Any]) -> dict[str, Any]:
        if caller.kind == "assumed-role":
            raise errors.not_with_session_credentials("GetSessionToken")
        duration = params.get("DurationSeconds", 43200)
        if caller.kind == "root":
            duration = min(duration, 3600)  # root sessions last at most an hour
        session = {
            "kind": caller.kind,
            "account": caller.account,
            "arn": caller.arn,
            "name": caller.name,
            "role_arn": None,
            "session_name": None,
            "user_id": self._user_id(caller),
        }
        return {"Credentials": self._issue(session, duration)}

    # ------------------------------------------------------------------ identity
    def unique_id(self, principal: Principal) -> str:
        """The caller's unique id as GetCallerIdentity's UserId and SQS's SenderId give it: the
        account for the root, AIDA... for a user, AROA...:<session> for a role session (also one
        onceflow acts as for a service: a Lambda destination, a Step Functions task)."""
        return self._user_id(principal)

    def _user_id(self, principal: Principal) -> str:
        if principal.kind == "root":
            return principal.account
        if principal.user_id:
            return principal.user_id
        if principal.access_key and principal.access_key.startswith("ASIA"):
            session = self.sessions.session(principal.access_key)
            if session:  # a role session, a session token or a federated user
                return str(session["user_id"])
        if principal.kind == "user":
            user = self.store.user(principal.account, principal.name)
            return user["user_id"] if user else principal.name
        if principal.kind == "assumed-role" and principal.role_arn:
            role_id = _role_id(principal.role_arn, self.store.role_by_arn(principal.role_arn))
            return f"{role_id}:{principal.session_name}" if principal.session_name else role_id
        return principal.name

    def access_key_account(self, key_id: str, default: str) -> str:
        """The account an access key belongs to (GetAccessKeyInfo): onceflow's own keys by lookup,
        a 12-digit key names its account, any other key is the default account's root."""
        if (session := self.sessions.session(key_id)) is not None:
            return str(session["account"])
        if (key := self.store.access_key(key_id)) is not None:
            return str(key["account"])
        return key_id if re.fullmatch(r"\d{12}", key_id) else default

    def caller_identity(self, principal: Principal, partition: str = "aws") -> dict[str, str]:
        # The account root is one principal in every partition: its ARN names the caller's.
        arn = f"arn:{partition}:iam::{principal.account}:root" if principal.kind == "root" else principal.arn
        return {"UserId": self._user_id(principal), "Account": principal.account, "Arn": arn}

    def principal_for(self, access_key: str) -> Principal | None:
        credential = self.credential_for(access_key)
        return credential.principal if credential else None

    def credential_for(self, access_key: str) -> Credential | None:
        """The credential resolver for temporary keys (ASIA...): the session, its secret, the token
        that must come with it and its expiry. An expired session keeps its identity (it never
        falls back to the account root); the wire layer refuses it as expired."""
        if not access_key.startswith("ASIA"):
            return None
        cached = self._credentials.get(access_key)
        if cached is not None:
            return cached
        s = self.sessions.session(access_key)
        if s is None:
            return None
        principal = Principal(
            s["account"],
            s["kind"],
            s["arn"],
            s["name"],
            role_arn=s.get("role_arn"),
            session_name=s.get("session_name"),
            access_key=access_key,
            user_id=s.get("user_id"),
        )
        expires = datetime.fromisoformat(s["Expiration"]).timestamp()
        credential = Credential(principal, s["SecretAccessKey"], s["SessionToken"], expires)
        self._credentials[access_key] = credential
        return credential

    def session_tags(self, principal: Principal) -> session_tags.Tags:
        """The tags a session was given (a role session's own and those carried down its chain, a
        federation token's)."""
        # Role sessions and federation tokens (a user's or the root's ASIA keys) may carry tags.
        if not principal.access_key or not principal.access_key.startswith("ASIA"):
            return {}
        cached = self._tags.get(principal.access_key)
        if cached is None:  # a session never changes
            cached = self._tags[principal.access_key] = (self.sessions.session(principal.access_key) or {}).get(
                "tags", {})
        return cached

    def session_policies(self, principal: Principal) -> list[Policy] | None:
        """The session policies AssumeRole was given (None when there are none): they limit what the
        role's own policies allow. Managed ones are read at their current default version."""
        if principal.kind not in ("assumed-role", "user", "root") or not principal.access_key:
            return None
        key, generation = principal.access_key, self.store.generation
        cached = self._session_policies.get(key)
        if cached is not None and cached[0] == generation:
            return cached[1]
        s = self.sessions.session(key) or {}
        policies: list[Policy] | None = None
        if s.get("federated"):  # a federation token allows only what its session policies allow
            policies = [stored(d) for d in self._session_documents(principal, s)]
        elif s.get("session_policy") or s.get("session_policy_arns"):
            policies = [stored(d) for d in self._session_documents(principal, s)]
        self._session_policies[key] = (generation, policies)
        return policies

    def _session_documents(self, principal: Principal, s: Row) -> list[str]:
        docs = [s["session_policy"]] if s.get("session_policy") else []
        return docs + [
            d for a in s.get("session_policy_arns") or [] if (d := self.iam.default_document(principal.account, a))
        ]

    def role_is_current(self, principal: Principal) -> bool:
        """Whether a role session still belongs to its role: sessions are bound to the role's unique
        id, so a deleted role that is created again under the same name does not revive them."""
        if principal.kind != "assumed-role" or not principal.access_key or not principal.role_arn:
            return True
        key, generation = principal.access_key, self.store.generation
        cached = self._current.get(key)
        if cached is not None and cached[0] == generation:
            return cached[1]
        session = self.sessions.session(key) or {}
        role = self.store.role_by_arn(principal.role_arn)
        current = role is not None and str(session.get("user_id", "")).split(":", 1)[0] == role["role_id"]
        self._current[key] = (generation, current)
        return current

    def forget(self) -> None:
        self._credentials.clear()
        self._session_policies.clear()
        self._current.clear()
        self._tags.clear()


def _role_id(role_arn: str, role: Row | None) -> str:
    """The role's unique id (AROA...), given its IAM row; one that IAM does not hold (the lenient
    mode runs functions as any role ARN) gets a stable id of the ARN's."""
    return str(role["role_id"]) if role else stable_id("AROA", role_arn)
