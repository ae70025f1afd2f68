"""S3's tag rules, in the one place every way of tagging passes (PutBucketTagging, PutObjectTagging and
the `x-amz-tagging` header of PutObject / CopyObject / CreateMultipartUpload): at most 10 object or 50
bucket tags, unique keys, no `aws:` key, keys of 1-128 and values of up to 256 characters. A refusal
comes before anything is written, so it changes nothing."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import parse_qs

from onceflow.errors import ServiceError
from onceflow.s3 import errors

Kind = Literal["bucket", "object"]
MAX_TAGS: dict[Kind, int] = {"bucket": 50, "object": 10}
MAX_KEY = 128
MAX_VALUE = 256
# The count refusals are BadRequest, not InvalidTag (as AWS answers them).
TOO_MANY: dict[Kind, str] = {"bucket": "Bucket tag count cannot be greater than 50",
                             "object": "Object tags cannot be greater than 10"}
# AWS words the reserved prefix differently for a bucket's and an object's tags.
RESERVED: dict[Kind, str] = {"bucket": "System tags cannot be added/updated by requester",
                             "object": "Your TagKey cannot be prefixed with aws:"}
BAD_HEADER = ("The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without "
              "tag name duplicates.")


def invalid_tag(message: str, **members: str) -> ServiceError:
    return ServiceError("InvalidTag", message, 400, extra=members)


def checked(tag_set: list[dict[str, Any]], kind: Kind) -> dict[str, str]:
    """A TagSet as a key -> value map, or the InvalidTag / BadRequest AWS answers for it."""
    if len(tag_set) > MAX_TAGS[kind]:
        raise ServiceError("BadRequest", TOO_MANY[kind], 400)
    tags: dict[str, str] = {}
    for tag in tag_set:
        key, value = tag.get("Key"), tag.get("Value")
        if key is None or value is None:  # <Tag> needs both elements (an empty <Value/> is a value)
            raise errors.malformed_xml()
        if key in tags:
            raise invalid_tag("Cannot provide multiple Tags with the same key", TagKey=key)
        if key.startswith("aws:"):
            raise invalid_tag(RESERVED[kind], TagKey=key)
        if not 1 <= len(key) <= MAX_KEY:
            raise invalid_tag("The TagKey you have provided is invalid", TagKey=key)
        if len(value) > MAX_VALUE:
            raise invalid_tag("The TagValue you have provided is invalid", TagKey=key, TagValue=value)
        tags[key] = value
    return tags


def from_header(text: str) -> dict[str, str]:
    """The x-amz-tagging header (a URL query string of tags), under an object's rules."""
    pairs = parse_qs(text, keep_blank_values=True)
    if any(len(values) > 1 for values in pairs.values()):
        raise errors.invalid_argument(BAD_HEADER, "x-amz-tagging", text)
    return checked([{"Key": k, "Value": v[0]} for k, v in pairs.items()], "object")
