"""STS federation (issue 22): AssumeRoleWithWebIdentity against an account's OIDC provider,
AssumeRoleWithSAML against its SAML provider, GetFederationToken and GetAccessKeyInfo."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tests.service.saml_signing import PLACEHOLDER, IdentityProvider, response

ACCOUNT = "000000000000"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as exc:
        call(**params)
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def b64url(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def jwt(**claims: Any) -> str:
    return f"{b64url({'alg': 'RS256', 'kid': 'k1'})}.{b64url(claims)}.c2lnbmF0dXJl"


def session_client(aws: Callable[..., Any], service: str, creds: dict[str, Any]) -> Any:
    return aws(service, access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])


def test_assume_role_with_web_identity(aws: Callable[..., Any]) -> None:
    iam, sts = aws("iam"), aws("sts")
    host = f"{unique('idp')}.example.com"
    provider = iam.create_open_id_connect_provider(Url=f"https://{host}", ClientIDList=["my-app"],
                                                   ThumbprintList=["c" * 40])["OpenIDConnectProviderArn"]
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": provider}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {f"{host}:aud": "my-app", f"{host}:sub": "alice"}}}]}
    role = unique("web")
    role_arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    token = jwt(iss=f"https://{host}", aud="my-app", sub="alice", exp=int(time.time()) + 600)

    out = sts.assume_role_with_web_identity(RoleArn=role_arn, RoleSessionName="s1", WebIdentityToken=token)
    assert out["SubjectFromWebIdentityToken"] == "alice" and out["Audience"] == "my-app"
    assert out["Provider"] == f"https://{host}"
    assert out["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/{role}/s1"
    ident = session_client(aws, "sts", out["Credentials"]).get_caller_identity()
    assert ident["Arn"] == out["AssumedRoleUser"]["Arn"]

    def attempt(tok: str) -> tuple[str, str, int]:
        return refused(sts.assume_role_with_web_identity, RoleArn=role_arn, RoleSessionName="s2",
                       WebIdentityToken=tok)

    assert attempt(jwt(iss=f"https://{host}", aud="other-app", sub="alice")) == (
        "InvalidIdentityToken", "Incorrect token audience", 400)
    assert attempt(jwt(iss="https://nobody.example.com", aud="my-app", sub="alice")) == (
        "InvalidIdentityToken", "No OpenIDConnect provider found in your account for https://nobody.example.com", 400)
    assert attempt(jwt(iss=f"https://{host}", aud="my-app", sub="mallory")) == (
        "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity", 403)
    assert attempt("not-a-jwt")[0] == "InvalidIdentityToken"
    # AWS's words for an expired token, both times in epoch seconds (aws/aws-sdk-java-v2#5709 quotes STS's answer).
    expired = int(time.time()) - 120
    code, message, status = attempt(jwt(iss=f"https://{host}", aud="my-app", sub="alice", exp=expired))
    assert (code, status) == ("ExpiredTokenException", 400)
    now_part, _, exp_part = message.removeprefix("Token expired: current date/time ").partition(
        " must be before the expiration date/time ")
    assert int(exp_part) == expired and expired < int(now_part) <= time.time()


SAML_ASSERTION = """<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_assertion1" Version="2.0">
<saml:Issuer>https://idp.example.com</saml:Issuer>""" + PLACEHOLDER + """
<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">bob</saml:NameID>
<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">
<saml:SubjectConfirmationData Recipient="https://signin.aws.amazon.com/saml" NotOnOrAfter="2099-01-01T00:00:00Z"/>
</saml:SubjectConfirmation></saml:Subject>
<saml:Conditions NotOnOrAfter="2099-01-01T00:00:00Z"><saml:AudienceRestriction>
<saml:Audience>https://signin.aws.amazon.com/saml</saml:Audience></saml:AudienceRestriction></saml:Conditions>
<saml:AttributeStatement>
<saml:Attribute Name="https://aws.amazon.com/SAML/Attributes/Role"><saml:AttributeValue>{role},{provider}</saml:AttributeValue>
</saml:Attribute>
<saml:Attribute Name="https://aws.amazon.com/SAML/Attributes/RoleSessionName">
<saml:AttributeValue>bob@example.com</saml:AttributeValue></saml:Attribute>
</saml:AttributeStatement></saml:Assertion>"""
SIGNATURE_INVALID = ("InvalidIdentityToken", "Response signature invalid", 400)


def saml_role(aws: Callable[..., Any], metadata: str) -> tuple[str, str, str]:
    """A SAML provider of `metadata` and a role it may assume: (provider ARN, role ARN, role name)."""
    provider = aws("iam").create_saml_provider(Name=unique("idp"), SAMLMetadataDocument=metadata)["SAMLProviderArn"]
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": provider}, "Action": "sts:AssumeRoleWithSAML",
        "Condition": {"StringEquals": {"SAML:aud": "https://signin.aws.amazon.com/saml"}}}]}
    role = unique("saml")
    role_arn = aws("iam").create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    return provider, role_arn, role


def test_assume_role_with_saml(aws: Callable[..., Any]) -> None:
    # Changed in issue 22's signature work: the assertions are signed by a test IdP whose certificate the
    # provider's metadata holds (AWS refuses unsigned ones); what is checked is as before.
    sts = aws("sts")
    idp = IdentityProvider.new()
    provider, role_arn, role = saml_role(aws, idp.metadata())
    assertion = response(SAML_ASSERTION.format(role=role_arn, provider=provider), idp)

    out = sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=assertion)
    assert (out["Subject"], out["SubjectType"], out["Issuer"]) == ("bob", "persistent", "https://idp.example.com")
    assert out["Audience"] == "https://signin.aws.amazon.com/saml"
    assert out["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/{role}/bob@example.com"
    assert session_client(aws, "sts", out["Credentials"]).get_caller_identity()["Arn"] == out["AssumedRoleUser"]["Arn"]

    other = saml_role(aws, idp.metadata())[1]
    assert refused(sts.assume_role_with_saml, RoleArn=other, PrincipalArn=provider,
                   SAMLAssertion=assertion)[0] == "InvalidIdentityToken"  # the assertion names another role
    assert refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider,
                   SAMLAssertion=base64.b64encode(b"<nope/>").decode())[0] == "InvalidIdentityToken"

    # STS's two answers for a stale response, as users quote them (Versent/saml2aws#759: past its Conditions'
    # NotOnOrAfter; Nike-Inc/gimme-aws-creds#251: an assertion issued more than 5 minutes before).
    def stale(xml: str) -> tuple[str, str, int]:
        return refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider,
                       SAMLAssertion=response(xml.format(role=role_arn, provider=provider), idp))

    past = SAML_ASSERTION.replace('<saml:Conditions NotOnOrAfter="2099-01-01T00:00:00Z"',
                                  '<saml:Conditions NotOnOrAfter="2020-01-17T03:37:32.630Z"')
    assert stale(past) == ("ExpiredTokenException", "Response has expired", 400)
    issued = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 600))
    old_assertion = SAML_ASSERTION.replace("<saml:Assertion ", f'<saml:Assertion IssueInstant="{issued}" ')
    assert stale(old_assertion) == ("ExpiredTokenException", "Token must be redeemed within 5 minutes of issuance", 400)
    fresh = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 30))
    text = SAML_ASSERTION.replace("<saml:Assertion ", f'<saml:Assertion IssueInstant="{fresh}" ')
    assert sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=response(
        text.format(role=role_arn, provider=provider), idp))["Subject"] == "bob"


def test_federation_token_and_access_key_info(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    user = unique("fed")
    iam.create_user(UserName=user)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    as_user = aws("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    out = as_user.get_federation_token(Name="app-user", DurationSeconds=900)
    assert out["FederatedUser"] == {"FederatedUserId": f"{ACCOUNT}:app-user",
                                    "Arn": f"arn:aws:sts::{ACCOUNT}:federated-user/app-user"}
    assert out["PackedPolicySize"] == 0  # no session policies: AWS's recorded answer
    ident = session_client(aws, "sts", out["Credentials"]).get_caller_identity()
    assert (ident["Arn"], ident["UserId"]) == (out["FederatedUser"]["Arn"], f"{ACCOUNT}:app-user")
    assert refused(session_client(aws, "sts", out["Credentials"]).get_federation_token, Name="again")[0] == (
        "AccessDenied")

    sts = aws("sts")
    assert refused(sts.decode_authorization_message, EncodedMessage="bm90LWVuY29kZWQ=")[0] == (
        "InvalidAuthorizationMessageException")
    assert sts.get_access_key_info(AccessKeyId=key["AccessKeyId"])["Account"] == ACCOUNT
    assert sts.get_access_key_info(AccessKeyId=out["Credentials"]["AccessKeyId"])["Account"] == ACCOUNT


def test_a_federation_token_allows_only_its_session_policy(server_factory: Callable[..., Any]) -> None:
    server = server_factory(extra_args=("--enforce-iam",))
    iam = server.client("iam")
    iam.create_user(UserName="fed")
    allow = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["iam:ListRoles", "iam:ListUsers", "sts:GetFederationToken"], "Resource": "*"}]}
    iam.put_user_policy(UserName="fed", PolicyName="p", PolicyDocument=json.dumps(allow))
    key = iam.create_access_key(UserName="fed")["AccessKey"]
    sts = server.client("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])

    def as_federated(**params: Any) -> Any:
        creds = sts.get_federation_token(Name="app", **params)["Credentials"]
        return server.client("iam", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                             session_token=creds["SessionToken"])

    assert refused(as_federated().list_roles)[0] == "AccessDenied"  # no session policy: nothing
    narrow = as_federated(Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "iam:ListRoles", "Resource": "*"}]}))
    assert "Roles" in narrow.list_roles()
    assert refused(narrow.list_users)[0] == "AccessDenied"  # the user may, the session may not
    # A federation token's tags are its principal tags (here the session policy tests them).
    tagged = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "iam:ListRoles", "Resource": "*",
                                                      "Condition": {"StringEquals": {"aws:PrincipalTag/app": "blue"}}}]}
    blue = as_federated(Policy=json.dumps(tagged), Tags=[{"Key": "App", "Value": "blue"}])
    assert "Roles" in blue.list_roles()
    red = as_federated(Policy=json.dumps(tagged), Tags=[{"Key": "app", "Value": "red"}])
    assert refused(red.list_roles)[0] == "AccessDenied"
    assert refused(sts.get_federation_token, Name="app", Tags=[{"Key": "a", "Value": "1"}, {"Key": "A", "Value": "2"}])[
        0] == "InvalidParameterValue"


def _signed(key: Any, alg: str, claims: dict[str, Any], kid: str = "k1") -> str:
    """A JWT signed as an identity provider signs it: RS256 over header.payload, or ES256 as r||s."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    signed = f"{b64url({'alg': alg, 'kid': kid, 'typ': 'JWT'})}.{b64url(claims)}"
    if alg == "RS256":
        signature = key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = decode_dss_signature(key.sign(signed.encode(), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return f"{signed}.{base64.urlsafe_b64encode(signature).decode().rstrip('=')}"


def _jwk_int(n: int) -> str:
    return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).decode().rstrip("=")


def test_web_identity_tokens_of_an_issuer_given_keys_are_verified(server_factory: Callable[..., Any],
                                                                   tmp_path: Any) -> None:
    """AWS verifies a token's signature with the issuer's published keys (its jwks_uri); onceflow does
    for an issuer given its key set with --oidc-keys, and leaves other issuers' tokens unverified."""
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rn, en = rsa_key.public_key().public_numbers(), ec_key.public_key().public_numbers()
    jwks = {"keys": [
        {"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256", "n": _jwk_int(rn.n), "e": _jwk_int(rn.e)},
        {"kty": "EC", "kid": "k2", "crv": "P-256", "x": _jwk_int(en.x), "y": _jwk_int(en.y)}]}
    (tmp_path / "jwks.json").write_text(json.dumps(jwks))
    verified, unverified = "idp.verified.example.com", "idp.other.example.com"
    server = server_factory(extra_args=("--oidc-keys", f"https://{verified}={tmp_path / 'jwks.json'}"))
    iam, sts = server.client("iam"), server.client("sts")
    arns = {}
    for host in (verified, unverified):
        provider = iam.create_open_id_connect_provider(Url=f"https://{host}", ClientIDList=["app"],
                                                       ThumbprintList=["c" * 40])["OpenIDConnectProviderArn"]
        trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": provider},
                                                         "Action": "sts:AssumeRoleWithWebIdentity"}]}
        arns[host] = iam.create_role(RoleName=unique("web"), AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    claims = {"iss": f"https://{verified}", "aud": "app", "sub": "alice", "exp": int(time.time()) + 600}

    def assume(host: str, token: str) -> Any:
        return sts.assume_role_with_web_identity(RoleArn=arns[host], RoleSessionName="s1", WebIdentityToken=token)

    assert assume(verified, _signed(rsa_key, "RS256", claims))["SubjectFromWebIdentityToken"] == "alice"
    assert assume(verified, _signed(ec_key, "ES256", claims, kid="k2"))["Audience"] == "app"
    good = _signed(rsa_key, "RS256", claims)
    head, _, sig = good.split(".")
    tampered = f"{head}.{b64url({**claims, 'sub': 'mallory'})}.{sig}"
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    unknown_kid = _signed(rsa_key, "RS256", claims, kid="k9")
    for token in (tampered, _signed(other_key, "RS256", claims), jwt(**claims), unknown_kid):
        code, message, status = refused(assume, host=verified, token=token)
        assert (code, status) == ("InvalidIdentityToken", 400)
        assert message.startswith("The web identity token that was passed could not be validated")
    # An issuer given no keys: its tokens' signatures are still accepted unread.
    assert assume(unverified, jwt(**{**claims, "iss": f"https://{unverified}"}))["Provider"] == f"https://{unverified}"


def test_oidc_keys_that_cannot_be_read_stop_the_start(tmp_path: Any) -> None:
    from onceflow.cli import oidc_keys_arg

    (tmp_path / "bad.json").write_text('{"keys": "none"}')
    (tmp_path / "empty.json").write_text('{"keys": []}')
    idp = "https://idp.example.com"
    for value in (f"idp.example.com={tmp_path / 'bad.json'}", f"{idp}={tmp_path / 'missing.json'}",
                  f"{idp}={tmp_path / 'bad.json'}", f"{idp}={tmp_path / 'empty.json'}"):
        with pytest.raises(SystemExit):
            oidc_keys_arg(value)
