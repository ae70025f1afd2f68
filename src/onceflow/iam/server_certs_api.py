"""Server certificate operations (query protocol)."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam.api import Out, _date, paged, tags_out
from onceflow.iam.server_certs import ServerCertificates
from onceflow.iam.store import Row
from onceflow.registry import operation


def metadata(cert: Row) -> Out:
    out: Out = {k: cert[k] for k in ("Path", "ServerCertificateName", "ServerCertificateId", "Arn")}
    return {**out, "UploadDate": _date(cert["UploadDate"]), "Expiration": _date(cert["Expiration"])}


class ServerCertificatesApi:
    def __init__(self, certs: ServerCertificates) -> None:
        self.certs = certs

    @operation("UploadServerCertificate")
    def upload_server_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        cert = self.certs.upload(ctx.account, params, partition(ctx.region))
        out: Out = {"ServerCertificateMetadata": metadata(cert)}
        if cert["tags"]:
            out["Tags"] = cert["tags"]
        return out

    @operation("GetServerCertificate")
    def get_server_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        cert = self.certs.get(ctx.account, params["ServerCertificateName"])
        out: Out = {"ServerCertificateMetadata": metadata(cert), "CertificateBody": cert["CertificateBody"]}
        if cert.get("CertificateChain"):
            out["CertificateChain"] = cert["CertificateChain"]
        out["Tags"] = cert["tags"]  # [] too (recorded: LocalStack's test_iam_server_certificates snapshot)
        return {"ServerCertificate": out}

    @operation("ListServerCertificates")
    def list_server_certificates(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        certs, marker = self.certs.listing(ctx.account, params)
        return paged("ServerCertificateMetadataList", [metadata(c) for c in certs], marker)

    @operation("UpdateServerCertificate")
    def update_server_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.certs.update(ctx.account, params["ServerCertificateName"], params.get("NewServerCertificateName"),
                          params.get("NewPath"))

    @operation("DeleteServerCertificate")
    def delete_server_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.certs.delete(ctx.account, params["ServerCertificateName"])

    @operation("TagServerCertificate")
    def tag_server_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.certs.tag(ctx.account, params["ServerCertificateName"], params["Tags"], None)

    @operation("UntagServerCertificate")
    def untag_server_certificate(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.certs.tag(ctx.account, params["ServerCertificateName"], None, params["TagKeys"])

    @operation("ListServerCertificateTags")
    def list_server_certificate_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.certs.get(ctx.account, params["ServerCertificateName"])["tags"], params)
