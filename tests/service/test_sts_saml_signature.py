"""AssumeRoleWithSAML verifies the response's XML signature against the signing certificates of the SAML
provider's metadata (issue 22), and reads only what the signature covers. AWS's answer to a response its
keys do not sign: InvalidIdentityToken "Response signature invalid" (IAM User Guide, "Troubleshoot SAML
federation")."""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from tests.service.saml_signing import IdentityProvider, response
from tests.service.test_sts_federation import SAML_ASSERTION, SIGNATURE_INVALID, refused, saml_role


@pytest.fixture(scope="module")
def idp() -> IdentityProvider:
    return IdentityProvider.new()


@pytest.fixture(scope="module")
def other_idp() -> IdentityProvider:
    return IdentityProvider.new()


def decoded(encoded: str) -> str:
    return base64.b64decode(encoded).decode()


def encoded(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_a_signed_assertion_or_response_is_accepted(aws: Callable[..., Any], idp: IdentityProvider) -> None:
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())
    xml = SAML_ASSERTION.format(role=role_arn, provider=provider)
    for signed in (response(xml, idp), response(xml, idp, sign_response=True)):
        out = sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=signed)
        assert out["Subject"] == "bob"
    # A KeyDescriptor without a use is for signing too (SAML metadata 2.4.1.1).
    provider, role_arn, _ = saml_role(aws, idp.metadata(use=None))
    signed = response(SAML_ASSERTION.format(role=role_arn, provider=provider), idp)
    assert sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=signed)["Subject"] == "bob"


def test_an_unsigned_or_wrongly_signed_response_is_refused(aws: Callable[..., Any], idp: IdentityProvider,
                                                           other_idp: IdentityProvider) -> None:
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())
    xml = SAML_ASSERTION.format(role=role_arn, provider=provider)

    def attempt(assertion: str, principal: str = provider) -> tuple[str, str, int]:
        return refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=principal, SAMLAssertion=assertion)

    assert attempt(response(xml, None)) == SIGNATURE_INVALID  # unsigned
    assert attempt(response(xml, other_idp)) == SIGNATURE_INVALID  # a certificate the metadata does not hold
    assert attempt(response(xml, other_idp, sign_response=True)) == SIGNATURE_INVALID
    # A bad signature value: its first characters changed.
    good = decoded(response(xml, idp))
    bad = re.sub(r"<ds:SignatureValue>(....)", lambda m: "<ds:SignatureValue>" + m.group(1)[::-1], good)
    assert bad != good and attempt(encoded(bad)) == SIGNATURE_INVALID
    # The metadata's only certificate is for encryption: nothing signs for the provider.
    enc_provider, enc_role, _ = saml_role(aws, idp.metadata(use="encryption"))
    assert refused(sts.assume_role_with_saml, RoleArn=enc_role, PrincipalArn=enc_provider, SAMLAssertion=response(
        SAML_ASSERTION.format(role=enc_role, provider=enc_provider), idp)) == SIGNATURE_INVALID


def test_a_tampered_assertion_is_refused(aws: Callable[..., Any], idp: IdentityProvider) -> None:
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())
    other_role = saml_role(aws, idp.metadata())[1]
    for sign_response in (False, True):
        good = decoded(response(SAML_ASSERTION.format(role=role_arn, provider=provider), idp,
                                sign_response=sign_response))
        for tampered in (good.replace(">bob<", ">mallory<"), good.replace(role_arn, other_role)):
            assert tampered != good
            for role in (role_arn, other_role):
                assert refused(sts.assume_role_with_saml, RoleArn=role, PrincipalArn=provider,
                               SAMLAssertion=encoded(tampered)) == SIGNATURE_INVALID


def test_a_wrapped_assertion_is_refused(aws: Callable[..., Any], idp: IdentityProvider) -> None:
    """XML signature wrapping: the signed assertion moved aside (into the Response's Extensions) and an
    unsigned one naming another subject and role put where STS reads it. The signature still verifies over
    the moved one; STS must not read the other."""
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())
    other_role = saml_role(aws, idp.metadata())[1]
    signed = decoded(response(SAML_ASSERTION.format(role=role_arn, provider=provider), idp))
    original = signed[signed.index("<saml:Assertion"):signed.index("</samlp:Response>")]
    evil = (SAML_ASSERTION.format(role=other_role, provider=provider).replace(">bob<", ">mallory<")
            .replace('ID="_assertion1"', 'ID="_evil"').replace(
                '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="placeholder"/>', ""))
    head = signed[:signed.index("<saml:Assertion")]
    wrappings = [
        head + "<samlp:Extensions>" + original + "</samlp:Extensions>" + evil + "</samlp:Response>",
        head + evil + "<samlp:Extensions>" + original + "</samlp:Extensions></samlp:Response>",
        head + original + evil + "</samlp:Response>",  # two assertions: which one is meant is ambiguous
    ]
    for wrapped in wrappings:
        for role in (role_arn, other_role):
            code, _, status = refused(sts.assume_role_with_saml, RoleArn=role, PrincipalArn=provider,
                                      SAMLAssertion=encoded(wrapped))
            assert (code, status) == ("InvalidIdentityToken", 400)
    # The evil assertion's ID given to the signed one's reference: the digest no longer matches.
    retargeted = head + evil.replace('ID="_evil"', 'ID="_assertion1"') + "</samlp:Response>"
    retargeted = retargeted.replace("</saml:Issuer>", "</saml:Issuer>" + original[original.index("<ds:Signature"):
                                    original.index("</ds:Signature>") + len("</ds:Signature>")], 1)
    assert refused(sts.assume_role_with_saml, RoleArn=other_role, PrincipalArn=provider,
                   SAMLAssertion=encoded(retargeted)) == SIGNATURE_INVALID


def test_dtds_and_entities_are_refused(aws: Callable[..., Any], idp: IdentityProvider) -> None:
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())
    signed = decoded(response(SAML_ASSERTION.format(role=role_arn, provider=provider), idp))
    laughs = ('<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>')
    external = '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    for doctype, entity in ((laughs, "&c;"), (external, "&x;")):
        text = doctype + signed.replace(">bob@example.com<", f">{entity}<")
        assert refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider,
                       SAMLAssertion=encoded(text)) == ("InvalidIdentityToken", "Invalid SAML assertion", 400)
        # A DTD alone, even around a well-signed response.
        assert refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider,
                       SAMLAssertion=encoded(doctype + signed))[0] == "InvalidIdentityToken"


def test_audience_recipient_and_validity_window(aws: Callable[..., Any], idp: IdentityProvider) -> None:
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())

    def attempt(xml: str) -> Any:
        return sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=response(
            xml.format(role=role_arn, provider=provider), idp))

    def refusal(xml: str) -> tuple[str, str, int]:
        return refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=response(
            xml.format(role=role_arn, provider=provider), idp))

    aws_audience = "<saml:Audience>https://signin.aws.amazon.com/saml</saml:Audience>"
    # The IAM User Guide's words for an assertion for someone else ("Response does not contain the required
    # audience."); the code is UNCONFIRMED.
    assert refusal(SAML_ASSERTION.replace(aws_audience, "<saml:Audience>https://app.example.com</saml:Audience>")) == (
        "InvalidIdentityToken", "Response does not contain the required audience.", 400)
    # Another audience beside AWS's is fine; urn:amazon:webservices names AWS too (but the trust policy here
    # asks for SAML:aud to be the sign-in URL, so that one is refused by the trust policy).
    both = SAML_ASSERTION.replace(aws_audience, "<saml:Audience>https://app.example.com</saml:Audience>" + aws_audience)
    assert attempt(both)["Audience"] == "https://signin.aws.amazon.com/saml"
    urn = SAML_ASSERTION.replace(aws_audience, "<saml:Audience>urn:amazon:webservices</saml:Audience>")
    assert refusal(urn) == ("AccessDenied", "Not authorized to perform sts:AssumeRoleWithSAML", 403)
    regional = 'Recipient="https://us-west-2.signin.aws.amazon.com/saml"'
    regional_xml = SAML_ASSERTION.replace('Recipient="https://signin.aws.amazon.com/saml"', regional)
    assert attempt(regional_xml)["Subject"] == "bob"
    wrong_recipient = SAML_ASSERTION.replace('Recipient="https://signin.aws.amazon.com/saml"',
                                             'Recipient="https://app.example.com/acs"')
    assert refusal(wrong_recipient)[0] == "InvalidIdentityToken"  # AWS's message UNCONFIRMED
    later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    not_yet = SAML_ASSERTION.replace('<saml:Conditions ', f'<saml:Conditions NotBefore="{later}" ')
    assert refusal(not_yet)[0] == "InvalidIdentityToken"  # AWS's message UNCONFIRMED
    confirmation_past = SAML_ASSERTION.replace('Recipient="https://signin.aws.amazon.com/saml" NotOnOrAfter="2099',
                                               'Recipient="https://signin.aws.amazon.com/saml" NotOnOrAfter="2020')
    assert refusal(confirmation_past) == ("ExpiredTokenException", "Response has expired", 400)


def test_what_is_read_is_the_signed_text_not_the_comment_split_one(aws: Callable[..., Any],
                                                                   idp: IdentityProvider) -> None:
    """A comment put into a signed value does not change the digest (exclusive c14n drops comments), so the
    signature still verifies; the value read must be the signed one whole (the comment-truncation attack:
    "bob@example.com<!---->.evil.com" read as "bob@example.com")."""
    sts = aws("sts")
    provider, role_arn, role = saml_role(aws, idp.metadata())
    signed = decoded(response(SAML_ASSERTION.format(role=role_arn, provider=provider)
                              .replace(">bob@example.com<", ">bob@example.com.evil.com<"), idp))
    commented = signed.replace(">bob@example.com.evil.com<", ">bob@example.com<!---->.evil.com<")
    assert commented != signed
    out = sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=encoded(commented))
    assert out["AssumedRoleUser"]["Arn"].endswith(f":assumed-role/{role}/bob@example.com.evil.com")


def test_the_session_name_attribute_and_the_status(aws: Callable[..., Any], idp: IdentityProvider) -> None:
    sts = aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata())

    def refusal(xml: str, sign_response: bool = False) -> tuple[str, str, int]:
        return refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider, SAMLAssertion=response(
            xml.format(role=role_arn, provider=provider), idp, sign_response=sign_response))

    # The IAM User Guide's "Troubleshoot SAML federation" gives both answers, words and code.
    no_name = re.sub(r'<saml:Attribute Name="https://aws.amazon.com/SAML/Attributes/RoleSessionName">.*?'
                     r"</saml:Attribute>", "", SAML_ASSERTION, flags=re.S)
    assert no_name != SAML_ASSERTION
    assert refusal(no_name) == ("InvalidIdentityToken", "RoleSessionName is required in AuthnResponse", 400)
    assert refusal(SAML_ASSERTION.replace(">bob@example.com<", ">bob smith<")) == (
        "InvalidIdentityToken", "RoleSessionName in AuthnResponse must match [a-zA-Z_0-9+=,.@-]{2,64}", 400)
    # A Response whose Status is not Success is refused (AWS's message UNCONFIRMED).
    failed = decoded(response(SAML_ASSERTION.format(role=role_arn, provider=provider), idp)).replace(
        'Version="2.0"><saml:Assertion', 'Version="2.0"><samlp:Status><samlp:StatusCode '
        'Value="urn:oasis:names:tc:SAML:2.0:status:Responder"/></samlp:Status><saml:Assertion', 1)
    assert "status:Responder" in failed
    assert refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider,
                   SAMLAssertion=encoded(failed))[0] == "InvalidIdentityToken"
    succeeded = failed.replace("status:Responder", "status:Success")
    assert sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider,
                                     SAMLAssertion=encoded(succeeded))["Subject"] == "bob"


def test_any_signing_certificate_of_the_metadata_verifies(aws: Callable[..., Any], idp: IdentityProvider,
                                                           other_idp: IdentityProvider) -> None:
    """A certificate rotation: the metadata holds the old and the new signing certificate (as AWS's guide advises
    during one), and a response either signs is accepted; after UpdateSAMLProvider drops one, its signatures
    are refused."""
    iam, sts = aws("iam"), aws("sts")
    provider, role_arn, _ = saml_role(aws, idp.metadata(also=(other_idp,)))
    xml = SAML_ASSERTION.format(role=role_arn, provider=provider)
    for signer in (idp, other_idp):
        assert sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider,
                                         SAMLAssertion=response(xml, signer))["Subject"] == "bob"
    iam.update_saml_provider(SAMLProviderArn=provider, SAMLMetadataDocument=other_idp.metadata())
    assert refused(sts.assume_role_with_saml, RoleArn=role_arn, PrincipalArn=provider,
                   SAMLAssertion=response(xml, idp)) == SIGNATURE_INVALID
    assert sts.assume_role_with_saml(RoleArn=role_arn, PrincipalArn=provider,
                                     SAMLAssertion=response(xml, other_idp))["Subject"] == "bob"
