"""REST-XML with botocore as the oracle: what botocore serializes for S3 routes to the right
operation and parses back to the same parameters; what onceflow renders botocore parses back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import botocore.parsers
import botocore.serialize
import botocore.session
import pytest
from botocore.awsrequest import HeadersDict, create_request_object, prepare_request_dict

from onceflow.wire import rest_xml
from onceflow.wire.specs import Specs

MODEL = botocore.session.get_session().get_service_model("s3")
SPECS = Specs()
ROUTER = rest_xml.Router(SPECS.services["s3"])


def _serialize(operation: str, params: dict[str, Any]) -> tuple[str, str, str, dict[str, str], bytes]:
    op = MODEL.operation_model(operation)
    request = botocore.serialize.create_serializer("rest-xml").serialize_to_request(params, op)
    prepare_request_dict(request, endpoint_url="http://127.0.0.1:4566")
    prepared = create_request_object(request).prepare()
    url = urlsplit(prepared.url)
    body = prepared.body or b""
    body = body.encode() if isinstance(body, str) else body
    headers = {k.lower(): v.decode() if isinstance(v, bytes) else str(v) for k, v in prepared.headers.items()}
    return prepared.method, url.path, url.query, headers, body


CASES = [
    ("ListBuckets", {}),
    ("CreateBucket", {"Bucket": "b", "CreateBucketConfiguration": {"LocationConstraint": "eu-west-1"}}),
    ("ListObjectsV2", {"Bucket": "b", "Prefix": "p/", "Delimiter": "/", "MaxKeys": 5}),
    ("ListObjects", {"Bucket": "b", "Marker": "m"}),
    ("ListObjectVersions", {"Bucket": "b"}),
    ("GetObject", {"Bucket": "b", "Key": "dir/a b+c", "Range": "bytes=0-1", "VersionId": "v"}),
    ("HeadObject", {"Bucket": "b", "Key": "k", "IfModifiedSince": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)}),
    ("PutObject", {"Bucket": "b", "Key": "k", "Metadata": {"a": "1"}, "ContentType": "text/plain"}),
    ("CopyObject", {"Bucket": "b", "Key": "k", "CopySource": "src/key", "MetadataDirective": "REPLACE"}),
    ("DeleteObjects", {"Bucket": "b", "Delete": {"Objects": [{"Key": "a"}, {"Key": "b", "VersionId": "v"}],
                                                  "Quiet": True}}),
    ("PutBucketTagging", {"Bucket": "b", "Tagging": {"TagSet": [{"Key": "k", "Value": "v"}]}}),
    ("GetBucketTagging", {"Bucket": "b"}),
    ("PutBucketVersioning", {"Bucket": "b", "VersioningConfiguration": {"Status": "Enabled"}}),
    ("CreateMultipartUpload", {"Bucket": "b", "Key": "k"}),
    ("UploadPart", {"Bucket": "b", "Key": "k", "UploadId": "u", "PartNumber": 3}),
    ("UploadPartCopy", {"Bucket": "b", "Key": "k", "UploadId": "u", "PartNumber": 3, "CopySource": "s/k"}),
    ("CompleteMultipartUpload", {"Bucket": "b", "Key": "k", "UploadId": "u",
                                 "MultipartUpload": {"Parts": [{"PartNumber": 1, "ETag": '"e"'}]}}),
    ("AbortMultipartUpload", {"Bucket": "b", "Key": "k", "UploadId": "u"}),
    ("ListParts", {"Bucket": "b", "Key": "k", "UploadId": "u"}),
    ("GetObjectAttributes", {"Bucket": "b", "Key": "k", "ObjectAttributes": ["ETag", "ObjectSize"]}),
    ("PutPublicAccessBlock", {"Bucket": "b", "PublicAccessBlockConfiguration": {"BlockPublicAcls": True}}),
    ("PutBucketCors", {"Bucket": "b", "CORSConfiguration": {"CORSRules": [
        {"AllowedMethods": ["GET", "PUT"], "AllowedOrigins": ["*"], "MaxAgeSeconds": 30}]}}),
]


@pytest.mark.parametrize(("operation", "params"), CASES, ids=[c[0] for c in CASES])
def test_botocore_requests_route_and_parse_back(operation: str, params: dict[str, Any]) -> None:
    method, path, query, headers, body = _serialize(operation, params)
    bucket, key = rest_xml.split_path(path, None)
    parsed_query = rest_xml.query_of(query)
    op = ROUTER.match(method, bucket, key, parsed_query, headers)
    assert op is not None and op.name == operation
    labels = {k: v for k, v in (("Bucket", bucket), ("Key", key)) if v is not None}
    got = rest_xml.parse(op, labels, parsed_query, headers, body)
    for name, value in params.items():
        expected = value
        if name == "Metadata":
            expected = {k.lower(): v for k, v in value.items()}
        assert got[name] == expected, name


def _parse_back(operation: str, rendered: rest_xml.Rendered) -> dict[str, Any]:
    op = MODEL.operation_model(operation)
    headers = HeadersDict({"content-type": rendered.content_type, **dict(rendered.headers)})
    body = rendered.body if isinstance(rendered.body, bytes) else b"".join(rendered.body)
    parser = botocore.parsers.create_parser("rest-xml")
    return parser.parse({"status_code": rendered.status, "headers": headers, "body": body}, op.output_shape)


def test_botocore_parses_a_rendered_listing() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    result = {"IsTruncated": True, "Name": "b", "Prefix": "", "MaxKeys": 2, "KeyCount": 2,
              "Contents": [{"Key": "a&b", "LastModified": when, "ETag": '"e"', "Size": 3, "StorageClass": "STANDARD"}],
              "CommonPrefixes": [{"Prefix": "p/"}], "NextContinuationToken": "t"}
    op = SPECS.services["s3"].operations["ListObjectsV2"]
    parsed = _parse_back("ListObjectsV2", rest_xml.render(op, result, "req-1"))
    assert parsed["Contents"][0]["Key"] == "a&b" and parsed["Contents"][0]["LastModified"] == when
    assert parsed["CommonPrefixes"] == [{"Prefix": "p/"}] and parsed["NextContinuationToken"] == "t"
    assert parsed["IsTruncated"] is True and parsed["KeyCount"] == 2


def test_botocore_parses_rendered_headers_and_a_streamed_body() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    result = {"Body": iter([b"ab", b"c"]), "ContentLength": 3, "ETag": '"e"', "LastModified": when,
              "ContentType": "text/plain", "Metadata": {"k": "v"}, "StatusCode": 206, "ContentRange": "bytes 0-2/9"}
    op = SPECS.services["s3"].operations["GetObject"]
    rendered = rest_xml.render(op, result, "req-2")
    assert rendered.status == 206 and rendered.length == 3 and rendered.content_type == "text/plain"
    parsed = _parse_back("GetObject", rendered)
    assert parsed["Metadata"] == {"k": "v"} and parsed["LastModified"] == when
    assert parsed["ContentRange"] == "bytes 0-2/9" and parsed["ETag"] == '"e"'


def test_botocore_parses_an_s3_error() -> None:
    from onceflow.errors import ServiceError

    err = ServiceError("NoSuchKey", "The specified key does not exist.", 404, extra={"Key": "k"})
    response = rest_xml.render_error(err, "req-3")
    parser = botocore.parsers.create_parser("rest-xml")
    parsed = parser.parse({"status_code": 404, "headers": HeadersDict(dict(response.headers)), "body": response.body},
                          MODEL.operation_model("GetObject").output_shape)
    assert parsed["Error"]["Code"] == "NoSuchKey" and parsed["Error"]["Key"] == "k"
    assert parsed["ResponseMetadata"]["RequestId"]
