"""STS federation: role sessions for identities another provider vouches for (OpenID Connect
tokens, SAML assertions) and federation tokens for users' applications.

Web identity tokens' claims, provider, audience and the role's trust policy are checked as AWS
checks them. Their signatures are verified only for the issuers `serve --oidc-keys` gives a key set
(web_identity_keys.py): onceflow fetches no provider keys, so another issuer's token signature is
accepted unread. SAML responses are read only once their XML signature verifies against the
provider's metadata certificates (saml_signature.py), and only what the signature covers is read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.context import Principal
from onceflow.iam.common import issuer, partition_of, validate
from onceflow.iam.policy import Request, evaluate, stored
from onceflow.sts import errors, session_tags
from onceflow.sts.ports import Directory, Providers, Row
from onceflow.sts.service import StsService

if TYPE_CHECKING:
    from onceflow.sts.web_identity_keys import WebIdentityKeys

_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):role/(?:.*/)?([\w+=,.@-]+)")
_SAML = {
    "p": "urn:oasis:names:tc:SAML:2.0:protocol",
    "a": "urn:oasis:names:tc:SAML:2.0:assertion",
}
ROLE_ATTRIBUTE = "https://aws.amazon.com/SAML/Attributes/Role"
SESSION_ATTRIBUTE = "https://aws.amazon.com/SAML/Attributes/RoleSessionName"
# The audiences (and bearer Recipients) AWS's sign-in endpoints are named by: the global and regional
# https://[REGION.]signin.aws.amazon.com/saml (and the China and GovCloud partitions' hosts), or
# urn:amazon:webservices[:cn-north-1|:govcloud] for an audience.
_AWS_RECIPIENT = re.compile(r"https://(?:[a-z0-9-]+\.)?signin\.(?:aws\.amazon\.com|amazonaws\.cn|"
                            r"amazonaws-us-gov\.com)/saml")
_AWS_AUDIENCE = re.compile(_AWS_RECIPIENT.pattern + r"|urn:amazon:webservices(?::cn-north-1|:govcloud)?")
_SESSION_NAME = re.compile(r"[a-zA-Z_0-9+=,.@-]{2,64}")
_SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
SAML_REDEEM_WITHIN_S = 300  # an assertion must be redeemed within 5 minutes of its IssueInstant


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def jwt_claims(token: str) -> dict[str, Any]:
    parts = token.split(".")
    if len(parts) != 3:
        raise errors.invalid_identity_token(errors.NOT_JWT)
    try:
        header, claims = json.loads(_b64url(parts[0])), json.loads(_b64url(parts[1]))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise errors.invalid_identity_token(errors.NOT_JWT) from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise errors.invalid_identity_token(errors.NOT_JWT)
    return claims


class Federation:
    def __init__(self, sts: StsService, store: Directory, providers: Providers,
                 keys: WebIdentityKeys | None = None) -> None:
        self.sts = sts
        self.store = store
        self.providers = providers
        self.keys = keys  # the issuers whose token signatures are verified (None: no issuer's are)

    def _role(self, role_arn: str, action: str) -> Row:
        m = _ROLE_ARN.fullmatch(role_arn)
        if m is None:
            raise errors.invalid_role_arn(role_arn)
        role = self.store.role_by_arn(role_arn)
        if role is None:
            raise errors.not_authorized(action)
        return role

    def _trusted(self, role: Row, action: str, principal: tuple[str, str], context: dict[str, list[str]]) -> None:
        request = Request(action, principal=principal, context=context)
        if not evaluate([stored(role["trust"], "trust")], request).allowed:
            raise errors.not_authorized(action)

    # ------------------------------------------------------------------ OpenID Connect / OAuth 2.0
    def assume_role_with_web_identity(self, params: dict[str, Any]) -> dict[str, Any]:
        action = "sts:AssumeRoleWithWebIdentity"
        claims = jwt_claims(params["WebIdentityToken"])
        role = self._role(params["RoleArn"], action)
        iss, sub = str(claims.get("iss", "")), str(claims.get("sub", ""))
        aud = claims.get("aud", "")
        audiences = [str(a) for a in aud] if isinstance(aud, list) else [str(aud)]
        exp = claims.get("exp")
        now = time.time()
        if isinstance(exp, (int, float)) and exp < now:
            raise errors.web_identity_token_expired(int(now), int(exp))
        provider_id = params.get("ProviderId")
        if provider_id:  # an OAuth 2.0 provider AWS knows by name (www.amazon.com, graph.facebook.com)
            federated, prefix = provider_id, provider_id
        else:
            provider = self.providers.oidc_by_issuer(role["account"], iss, partition_of(role["arn"]))
            if provider is None:
                raise errors.no_oidc_provider(iss)
            if self.keys is not None:
                self.keys.verify(params["WebIdentityToken"], iss)
            if not set(audiences) & set(provider["client_ids"]):
                raise errors.wrong_audience()
            federated, prefix = provider["arn"], issuer(iss)
        context = {f"{prefix}:aud": audiences, f"{prefix}:sub": [sub]}
        if "azp" in claims:
            context[f"{prefix}:azp"] = [str(claims["azp"])]
        context = {k.lower(): v for k, v in context.items()}
        self._trusted(role, action, ("Federated", federated), context)
        creds, user = self.sts.role_session(role, params["RoleSessionName"], params)
        return {
            "Credentials": creds,
            "SubjectFromWebIdentityToken": sub,
            "AssumedRoleUser": user,
            "Provider": provider_id or iss,
            "Audience": audiences[0],
        }

    # ------------------------------------------------------------------ SAML 2.0
    def assume_role_with_saml(self, params: dict[str, Any]) -> dict[str, Any]:
        from onceflow.sts import saml_signature  # lxml and signxml: loaded by the first SAML call only

        action = "sts:AssumeRoleWithSAML"
        root = _saml_document(params["SAMLAssertion"])
        role = self._role(params["RoleArn"], action)
        provider_arn = params["PrincipalArn"]
        provider = self.store.obj(role["account"], "saml-provider", provider_arn)
        if provider is None:
            raise errors.saml_role_not_in_assertion()
        # Everything below reads only what the IdP signed (no signature wrapping).
        signed = saml_signature.signed_element(root, saml_signature.signing_certificates(provider["metadata"]))
        if signed is None:
            raise errors.saml_signature_invalid()
        assertion = _saml(signed)
        now = datetime.now(UTC)
        _check_saml_window(assertion, now)
        aws_audiences = [a for a in assertion["audiences"] if _AWS_AUDIENCE.fullmatch(a)]
        if not aws_audiences:
            raise errors.saml_audience_missing()
        if any(r and not _AWS_RECIPIENT.fullmatch(r) for r in assertion["recipients"]):
            raise errors.invalid_saml_assertion()
        pairs = {frozenset(p.strip() for p in v.split(","))
                 for v in assertion["attributes"].get(ROLE_ATTRIBUTE, [])}
        if frozenset({role["arn"], provider_arn}) not in pairs:
            raise errors.saml_role_not_in_assertion()
        names = assertion["attributes"].get(SESSION_ATTRIBUTE)
        if not names:
            raise errors.saml_session_name_missing()
        session_name = names[0]
        if not _SESSION_NAME.fullmatch(session_name):
            raise errors.saml_session_name_invalid()
        context = {"saml:aud": [aws_audiences[0]], "saml:sub": [assertion["subject"]],
                   "saml:iss": [assertion["issuer"]], "saml:sub_type": [assertion["subject_type"]]}
        self._trusted(role, action, ("Federated", provider_arn), context)
        creds, user = self.sts.role_session(role, session_name, params)
        qualifier = base64.b64encode(
            hashlib.sha1(f"{assertion['issuer']}{role['account']}/{provider['name']}".encode()).digest()
        ).decode()
        return {
            "Credentials": creds,
            "AssumedRoleUser": user,
            "Subject": assertion["subject"],
            "SubjectType": assertion["subject_type"],
            "Issuer": assertion["issuer"],
            "Audience": aws_audiences[0],
            "NameQualifier": qualifier,
        }

    # ------------------------------------------------------------------ federation tokens
    def get_federation_token(self, caller: Principal, params: dict[str, Any], partition: str = "aws") -> dict[str, Any]:
        temporary = (caller.access_key or "").startswith("ASIA")
        if caller.kind not in ("user", "root") or temporary:
            raise errors.not_with_session_credentials("GetFederationToken")
        name = params["Name"]
        duration = params.get("DurationSeconds", 43200)
        if caller.kind == "root":
            duration = min(duration, 3600)
        policy = params.get("Policy")
        if policy is not None:
            validate(policy)
        policy_arns = [d["arn"] for d in params.get("PolicyArns", [])]
        for arn in policy_arns:
            self.sts.iam.policy(caller.account, arn)
        arn = f"arn:{partition}:sts::{caller.account}:federated-user/{name}"
        # Acts as the calling user, narrowed by the session policies (none given: nothing allowed).
        session = {
            "kind": caller.kind,
            "account": caller.account,
            "arn": arn,
            "name": caller.name,
            "role_arn": None,
            "session_name": name,
            "user_id": f"{caller.account}:{name}",
            "federated": True,
            "session_policy": policy,
            "session_policy_arns": policy_arns,
        }
        tags, _ = session_tags.requested({"Tags": params.get("Tags") or []}, {}, [])
        if tags:
            session["tags"] = tags
        out: dict[str, Any] = {
            "Credentials": self.sts.issue(session, duration),
            "FederatedUser": {"FederatedUserId": f"{caller.account}:{name}", "Arn": arn},
        }
        if policy is None and not policy_arns and not tags:
            # AWS answers 0 for a token without session policies (recorded: LocalStack's test_sts
            # snapshot, "get-federation-token"). How AWS packs policies is not documented, so a
            # size is not made up for the others.
            out["PackedPolicySize"] = 0
        return out


def _saml_time(text: str) -> datetime:
    """A SAML xs:dateTime (UTC, 'Z' or an offset); an unreadable one is an invalid assertion."""
    try:
        at = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise errors.invalid_saml_assertion() from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _check_saml_window(assertion: dict[str, Any], now: datetime) -> None:
    """The assertion's validity window: its Conditions' and bearer confirmations' NotBefore and
    NotOnOrAfter, and AWS's 5 minutes from IssueInstant."""
    for until in assertion["not_on_or_after"]:
        if _saml_time(until) <= now:
            raise errors.saml_response_expired()
    for since in assertion["not_before"]:
        if _saml_time(since) > now:
            raise errors.invalid_saml_assertion()  # AWS's answer to a not-yet-valid assertion: UNCONFIRMED
    issued = assertion["issue_instant"]
    if issued and (now - _saml_time(issued)).total_seconds() > SAML_REDEEM_WITHIN_S:
        raise errors.saml_assertion_too_old()


def _saml_document(encoded: str) -> Any:
    """The root of a base64 SAML Response (or bare Assertion), parsed without DTDs or entities."""
    from onceflow.sts import saml_signature

    try:
        root = saml_signature.parse(base64.b64decode(encoded, validate=True))
    except (ValueError, binascii.Error):  # saml_signature.Unsafe is a ValueError
        raise errors.invalid_saml_assertion() from None
    if root.tag not in (saml_signature.RESPONSE_TAG, saml_signature.ASSERTION_TAG):
        raise errors.invalid_saml_assertion()
    # A response the IdP says failed is refused (its Status may be unsigned: read only to refuse).
    status = root.find("p:Status/p:StatusCode", _SAML)
    if status is not None and status.get("Value") != _SUCCESS:
        raise errors.invalid_saml_assertion()  # AWS's message UNCONFIRMED
    return root


def _text(element: Any) -> str:
    return str(element.text or "").strip() if element is not None else ""


def _saml(signed: Any) -> dict[str, Any]:
    """The parts STS reads of the signed Response (its one Assertion) or the signed Assertion."""
    if signed.tag == f"{{{_SAML['a']}}}Assertion":
        assertion = signed
    else:
        found = signed.findall("a:Assertion", _SAML)
        if len(found) != 1:  # none (an EncryptedAssertion is not read) or an ambiguous several
            raise errors.invalid_saml_assertion()
        assertion = found[0]
    name_id = assertion.find("a:Subject/a:NameID", _SAML)
    attributes: dict[str, list[str]] = {}
    for attr in assertion.iterfind("a:AttributeStatement/a:Attribute", _SAML):
        attributes[attr.get("Name", "")] = [_text(v) for v in attr.iterfind("a:AttributeValue", _SAML)]
    windows = [*assertion.iterfind("a:Conditions", _SAML),
               *assertion.iterfind("a:Subject/a:SubjectConfirmation/a:SubjectConfirmationData", _SAML)]
    fmt = name_id.get("Format", "") if name_id is not None else ""
    return {
        "subject": _text(name_id),
        "subject_type": fmt.rsplit(":", 1)[-1] if fmt else "transient",
        "issuer": _text(assertion.find("a:Issuer", _SAML)),
        "audiences": [_text(a) for a in assertion.iterfind("a:Conditions/a:AudienceRestriction/a:Audience", _SAML)],
        "recipients": [str(d.get("Recipient") or "") for d in
                       assertion.iterfind("a:Subject/a:SubjectConfirmation/a:SubjectConfirmationData", _SAML)],
        "not_on_or_after": [str(w.get("NotOnOrAfter")) for w in windows if w.get("NotOnOrAfter")],
        "not_before": [str(w.get("NotBefore")) for w in windows if w.get("NotBefore")],
        "issue_instant": assertion.get("IssueInstant"),
        "attributes": attributes,
    }
