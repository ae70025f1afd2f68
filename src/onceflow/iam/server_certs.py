"""Server certificates (UploadServerCertificate and friends): X.509 certificates IAM keeps for load
balancers and CloudFront. The private key is checked against the certificate and never kept (IAM
never gives it back). Kept whole as JSON in IAM's object table, by lower-cased name."""

from __future__ import annotations

from typing import Any

from onceflow.iam import errors
from onceflow.iam.common import drop_tags, merge_tags, new_id, now, page
from onceflow.iam.store import IamStore, Row

KIND = "server-cert"


def _expiration(body: str, private_key: str) -> str:
    """The certificate's notAfter, once the certificate parses and the key is its pair."""
    # Imported here: ~40 ms that start-up, and a Lambda runtime importing onceflow.lambda_, need not pay.
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    try:
        cert = x509.load_pem_x509_certificate(body.encode())
    except ValueError:
        raise errors.malformed_server_certificate() from None
    try:
        key = serialization.load_pem_private_key(private_key.encode(), password=None)
    except (ValueError, TypeError):
        raise errors.malformed_private_key() from None
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    if (key.public_key().public_bytes(serialization.Encoding.DER, spki)
            != cert.public_key().public_bytes(serialization.Encoding.DER, spki)):
        raise errors.key_pair_mismatch()
    return cert.not_valid_after_utc.replace(microsecond=0).isoformat()


class ServerCertificates:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    def upload(self, account: str, params: dict[str, Any], partition: str) -> Row:
        name, path = params["ServerCertificateName"], params.get("Path", "/")
        expiration = _expiration(params["CertificateBody"], params["PrivateKey"])
        cert = {
            "ServerCertificateName": name, "Path": path, "ServerCertificateId": new_id("ASCA"),
            "Arn": f"arn:{partition}:iam::{account}:server-certificate{path}{name}", "UploadDate": now(),
            "Expiration": expiration, "CertificateBody": params["CertificateBody"],
            "CertificateChain": params.get("CertificateChain"), "tags": merge_tags([], params.get("Tags", [])),
        }
        with self.store.writing() as conn:
            if self.store.obj(account, KIND, name.lower()):
                raise errors.server_certificate_exists(name)
            self.store.put_obj(conn, account, KIND, name.lower(), cert)
        return cert

    def get(self, account: str, name: str) -> Row:
        cert = self.store.obj(account, KIND, name.lower())
        if cert is None:
            raise errors.server_certificate_not_found(name)
        return cert

    def listing(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        prefix = params.get("PathPrefix", "/")
        certs = [c for c in self.store.objs(account, KIND) if c["Path"].startswith(prefix)]
        return page(certs, params.get("Marker"), params.get("MaxItems"), lambda c: c["ServerCertificateName"].lower())

    def update(self, account: str, name: str, new_name: str | None, new_path: str | None) -> None:
        with self.store.writing() as conn:
            cert = self.get(account, name)
            target, path = new_name or cert["ServerCertificateName"], new_path or cert["Path"]
            if target.lower() != name.lower() and self.store.obj(account, KIND, target.lower()):
                raise errors.server_certificate_exists(target)
            prefix = cert["Arn"].split(":server-certificate/", 1)[0]
            moved = {**cert, "ServerCertificateName": target, "Path": path,
                     "Arn": f"{prefix}:server-certificate{path}{target}"}
            self.store.delete_obj(conn, account, KIND, name.lower())
            self.store.put_obj(conn, account, KIND, target.lower(), moved)

    def delete(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            if not self.store.delete_obj(conn, account, KIND, name.lower()):
                raise errors.server_certificate_not_found(name)

    def tag(self, account: str, name: str, tags: list[dict[str, str]] | None, drop: list[str] | None) -> None:
        with self.store.writing() as conn:
            cert = self.get(account, name)
            if tags is not None:
                cert["tags"] = merge_tags(cert["tags"], tags)
            else:
                cert["tags"] = drop_tags(cert["tags"], drop)
            self.store.put_obj(conn, account, KIND, name.lower(), cert)
