"""Server certificates against a real server: upload (the key checked against the certificate),
get, list, rename, tag and delete."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from iam_setup import error

ACCT = "000000000000"


def pair() -> tuple[str, str, datetime]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "example.com")])
    until = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(datetime.now(UTC) - timedelta(days=1))
            .not_valid_after(until).sign(key, hashes.SHA256()))
    pem_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return cert.public_bytes(serialization.Encoding.PEM).decode(), pem_key, until


def test_server_certificate_lifecycle(iam: Any) -> None:
    name, body, key, until = f"cert-{uuid.uuid4().hex[:8]}", *pair()
    meta = iam.upload_server_certificate(ServerCertificateName=name, Path="/cloudfront/", CertificateBody=body,
                                         PrivateKey=key, Tags=[{"Key": "env", "Value": "t"}])
    md = meta["ServerCertificateMetadata"]
    assert md["Arn"] == f"arn:aws:iam::{ACCT}:server-certificate/cloudfront/{name}"
    assert md["ServerCertificateId"].startswith("ASCA") and md["Expiration"] == until
    assert meta["Tags"] == [{"Key": "env", "Value": "t"}]
    got = iam.get_server_certificate(ServerCertificateName=name)["ServerCertificate"]
    assert got["CertificateBody"] == body and "PrivateKey" not in got and got["ServerCertificateMetadata"] == md
    listed = iam.list_server_certificates(PathPrefix="/cloudfront/")["ServerCertificateMetadataList"]
    assert md in listed
    with pytest.raises(ClientError) as exc:
        iam.upload_server_certificate(ServerCertificateName=name, CertificateBody=body, PrivateKey=key)
    assert error(exc) == ("EntityAlreadyExists", f"The Server Certificate with name {name} already exists.", 409)
    iam.untag_server_certificate(ServerCertificateName=name, TagKeys=["env"])
    assert iam.get_server_certificate(ServerCertificateName=name)["ServerCertificate"]["Tags"] == []
    renamed = name + "-2"
    iam.update_server_certificate(ServerCertificateName=name, NewServerCertificateName=renamed, NewPath="/")
    moved = iam.get_server_certificate(ServerCertificateName=renamed)["ServerCertificate"]["ServerCertificateMetadata"]
    assert moved["Arn"] == f"arn:aws:iam::{ACCT}:server-certificate/{renamed}"
    iam.untag_server_certificate(ServerCertificateName=renamed, TagKeys=["ENV"])
    assert iam.list_server_certificate_tags(ServerCertificateName=renamed)["Tags"] == []
    iam.delete_server_certificate(ServerCertificateName=renamed)
    for call in (iam.get_server_certificate, iam.delete_server_certificate):
        with pytest.raises(ClientError) as exc:
            call(ServerCertificateName=renamed)
        assert error(exc) == ("NoSuchEntity", f"The Server Certificate with name {renamed} cannot be found.", 404)


def test_a_bad_certificate_or_a_key_of_another_pair_is_refused(iam: Any) -> None:
    name, body, key, _ = f"cert-{uuid.uuid4().hex[:8]}", *pair()
    _, other_key, _ = pair()
    with pytest.raises(ClientError) as exc:
        iam.upload_server_certificate(ServerCertificateName=name, CertificateBody="certbody", PrivateKey=key)
    assert error(exc)[0::2] == ("MalformedCertificate", 400)
    with pytest.raises(ClientError) as exc:
        iam.upload_server_certificate(ServerCertificateName=name, CertificateBody=body, PrivateKey=other_key)
    assert error(exc)[0::2] == ("KeyPairMismatch", 400)
    with pytest.raises(ClientError) as exc:
        iam.get_server_certificate(ServerCertificateName=name)
    assert error(exc)[0] == "NoSuchEntity"  # nothing was kept
