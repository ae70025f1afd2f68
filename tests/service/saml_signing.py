"""A test identity provider: a signing key, its certificate, the SAML metadata document that names it
(for CreateSAMLProvider) and SAML responses signed with it (XML-DSig by signxml, as an IdP signs them)."""

from __future__ import annotations

import base64
import datetime
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

PLACEHOLDER = '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="placeholder"/>'


@dataclass(frozen=True)
class IdentityProvider:
    key: rsa.RSAPrivateKey
    cert: x509.Certificate
    entity_id: str = "https://idp.example.com"

    @classmethod
    def new(cls, entity_id: str = "https://idp.example.com") -> IdentityProvider:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test idp")])
        now = datetime.datetime.now(datetime.UTC)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=3650)).sign(key, hashes.SHA256()))
        return cls(key, cert, entity_id)

    def key_descriptor(self, use: str | None = "signing") -> str:
        # The certificate's base64 broken into lines, as IdPs write it.
        der = base64.encodebytes(self.cert.public_bytes(serialization.Encoding.DER)).decode()
        use_attr = f' use="{use}"' if use else ""
        return (f"<KeyDescriptor{use_attr}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\n{der}"
                f"</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>")

    def metadata(self, use: str | None = "signing", also: tuple[IdentityProvider, ...] = ()) -> str:
        """The IdP's metadata document, its certificate in a KeyDescriptor of `use` (None: no use attribute),
        then the signing certificates of `also` (a rotation's other keys)."""
        return (f'<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" '
                f'xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="{self.entity_id}">'
                f'<IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">'
                + self.key_descriptor(use) + "".join(other.key_descriptor() for other in also) +
                f'<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" '
                f'Location="{self.entity_id}/sso"/></IDPSSODescriptor></EntityDescriptor>')

    def sign(self, xml: str) -> str:
        """`xml` (an element with an ID and a PLACEHOLDER where its signature goes) signed, enveloped."""
        # Imported here: a module that only names PLACEHOLDER (test_sts_federation's web identity tests)
        # collects without signxml; a SAML test then fails on the missing dependency, never skips.
        from lxml import etree
        from signxml import XMLSigner
        from signxml.algorithms import CanonicalizationMethod

        root = etree.fromstring(xml.encode())
        signer = XMLSigner(c14n_algorithm=CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0)
        signed = signer.sign(root, key=self.key, cert=[self.cert], reference_uri=root.get("ID"))
        return str(etree.tostring(signed).decode())


def response(assertion: str, idp: IdentityProvider | None, *, sign_response: bool = False) -> str:
    """A base64 Response around `assertion` (which has an ID and a PLACEHOLDER after its Issuer): the assertion
    signed by `idp`, or (sign_response) the whole Response, or nothing signed (idp None)."""
    if idp is not None and not sign_response:
        assertion = idp.sign(assertion)
    else:
        assertion = assertion.replace(PLACEHOLDER, "")
    text = ('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_response1" Version="2.0">'
            + (PLACEHOLDER if sign_response else "") + assertion + "</samlp:Response>")
    if idp is not None and sign_response:
        text = idp.sign(text)
    return base64.b64encode(text.encode()).decode()
