"""The XML signature of a SAML response, verified as AWS verifies it: against the signing certificates of
the SAML provider's metadata document (CreateSAMLProvider's SAMLMetadataDocument).

AWS validates "the identity of the caller ... by using keys in the metadata document" (the STS API
reference's AssumeRoleWithSAML) and answers an assertion those keys do not sign with InvalidIdentityToken
"Response signature invalid" (the IAM User Guide's "Troubleshoot SAML federation"). signxml (on lxml and
cryptography) checks the XML-DSig; this module only picks the keys and guards the parsing:

- no DTDs, no entities, no network: a document with a DOCTYPE is refused before anything reads it;
- signature wrapping: what STS reads afterwards is the element the signature covers, as signxml returns it
  (re-parsed from the signed canonical bytes), never the document the signature was found in.

Imported only by AssumeRoleWithSAML (lxml and signxml cost start-up time).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography import x509
from lxml import etree
from signxml import DigestAlgorithm, SignatureMethod, XMLVerifier
from signxml.exceptions import SignXMLException
from signxml.verifier import SignatureConfiguration

_MD = "urn:oasis:names:tc:SAML:2.0:metadata"
_DS = "http://www.w3.org/2000/09/xmldsig#"
_PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol"
_ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion"
RESPONSE_TAG = f"{{{_PROTOCOL}}}Response"
ASSERTION_TAG = f"{{{_ASSERTION}}}Assertion"

# SHA-1 is accepted as well as the SHA-2 family: identity providers still sign with rsa-sha1 and AWS is
# not documented to refuse it (UNCONFIRMED); signxml leaves SHA-1 out by default.
_EXPECTED = SignatureConfiguration(expect_references=1, signature_methods=frozenset(SignatureMethod),
                                   digest_algorithms=frozenset(DigestAlgorithm))


class Unsafe(ValueError):
    """The document is not well-formed XML, or carries a DTD."""


def _parser() -> Any:
    # A new parser per document: lxml parsers are not thread-safe.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False)


def parse(document: bytes) -> Any:
    """The root element of a document with no DTD (so no entities of any kind); Unsafe otherwise."""
    try:
        tree = etree.fromstring(document, _parser()).getroottree()
    except (etree.XMLSyntaxError, ValueError):
        raise Unsafe("not well-formed XML") from None
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise Unsafe("a DTD")
    return tree.getroot()


def signing_certificates(metadata: str) -> list[x509.Certificate]:
    """The certificates of the metadata's KeyDescriptors for signing: use="signing", or no use at all
    (SAML metadata 2.4.1.1: a key without a use is for both signing and encryption)."""
    try:
        root = parse(metadata.encode())
    except Unsafe:
        return []
    certs = []
    for descriptor in root.iter(f"{{{_MD}}}KeyDescriptor"):
        if descriptor.get("use", "signing") != "signing":
            continue
        for text in descriptor.iterfind(f".//{{{_DS}}}X509Certificate"):
            try:
                certs.append(x509.load_der_x509_certificate(base64.b64decode("".join((text.text or "").split()))))
            except (ValueError, binascii.Error):
                continue  # an unreadable certificate signs nothing
    return certs


def signed_element(root: Any, certs: list[x509.Certificate]) -> Any | None:
    """The Response or Assertion one of `certs` signs (as signed: the signature's own content), or None."""
    if root.find(f".//{{{_DS}}}Signature") is None:
        return None
    for cert in certs:
        try:
            result = XMLVerifier().verify(root, x509_cert=cert, expect_config=_EXPECTED, parser=_parser())
        except (SignXMLException, ValueError):  # signxml's InvalidSignature is also cryptography's
            continue
        signed = result.signed_xml if not isinstance(result, list) else None
        if signed is not None and signed.tag in (RESPONSE_TAG, ASSERTION_TAG) and signed.get("ID") in _covered(root):
            return signed
        return None  # a signature that checks out, over something other than the response or its assertion
    return None


def _covered(root: Any) -> set[str]:
    """The IDs a signature may cover for the document to count as signed: the Response's own, or that of its
    one Assertion (a bare Assertion's own). A signed element anywhere else (XML signature wrapping: the signed
    assertion moved aside, another put in its place) signs nothing STS reads. signxml refuses a reference
    that more than one element's ID matches, so an ID names one element."""
    ids = {root.get("ID")}
    if root.tag == RESPONSE_TAG:
        assertions = root.findall(ASSERTION_TAG)
        if len(assertions) == 1:
            ids.add(assertions[0].get("ID"))
    return {str(i) for i in ids if i}
