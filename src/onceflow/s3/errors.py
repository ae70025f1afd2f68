"""S3's errors in AWS's words (codes, messages, statuses and the members its <Error> carries)."""

from __future__ import annotations

from onceflow.errors import ServiceError


def no_such_bucket(bucket: str) -> ServiceError:
    return ServiceError("NoSuchBucket", "The specified bucket does not exist", 404, extra={"BucketName": bucket})


def no_such_key(key: str) -> ServiceError:
    return ServiceError("NoSuchKey", "The specified key does not exist.", 404, extra={"Key": key})


def no_such_version(key: str, version_id: str) -> ServiceError:
    return ServiceError("NoSuchVersion", "The specified version does not exist.", 404,
                        extra={"Key": key, "VersionId": version_id})


def invalid_version(version_id: str) -> ServiceError:
    return ServiceError("InvalidArgument", "Invalid version id specified", 400,
                        extra={"ArgumentName": "versionId", "ArgumentValue": version_id})


def invalid_bucket_name(bucket: str) -> ServiceError:
    return ServiceError("InvalidBucketName", "The specified bucket is not valid.", 400, extra={"BucketName": bucket})


def bucket_exists(bucket: str) -> ServiceError:
    return ServiceError("BucketAlreadyExists", "The requested bucket name is not available. The bucket namespace is "
                        "shared by all users of the system. Please select a different name and try again.", 409,
                        extra={"BucketName": bucket})


def bucket_owned(bucket: str) -> ServiceError:
    return ServiceError("BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and "
                        "you already own it.", 409, extra={"BucketName": bucket})


def bucket_not_empty(bucket: str) -> ServiceError:
    return ServiceError("BucketNotEmpty", "The bucket you tried to delete is not empty", 409,
                        extra={"BucketName": bucket})


def bad_digest() -> ServiceError:
    return ServiceError("BadDigest", "The Content-MD5 you specified did not match what we received.", 400)


def invalid_digest() -> ServiceError:
    return ServiceError("InvalidDigest", "The Content-MD5 you specified is not valid.", 400)


def checksum_mismatch(algorithm: str) -> ServiceError:
    return ServiceError("BadDigest", f"The {algorithm} you specified did not match the calculated checksum.", 400)


def invalid_range(size: int, requested: str) -> ServiceError:
    return ServiceError("InvalidRange", "The requested range is not satisfiable", 416,
                        extra={"RangeRequested": requested, "ActualObjectSize": size})


def precondition_failed(condition: str) -> ServiceError:
    return ServiceError("PreconditionFailed", "At least one of the pre-conditions you specified did not hold", 412,
                        extra={"Condition": condition})


def not_modified() -> ServiceError:
    return ServiceError("NotModified", "Not Modified", 304)


def no_such_upload(upload_id: str) -> ServiceError:
    return ServiceError("NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the "
                        "upload may have been aborted or completed.", 404, extra={"UploadId": upload_id})


def entity_too_small() -> ServiceError:
    return ServiceError("EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.",
                        400)


def invalid_part(part: int) -> ServiceError:
    return ServiceError("InvalidPart", "One or more of the specified parts could not be found.  The part may not "
                        "have been uploaded, or the specified entity tag may not match the part's entity tag.", 400,
                        extra={"PartNumber": part})


def invalid_part_order() -> ServiceError:
    return ServiceError("InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by "
                        "part number.", 400)


def invalid_argument(message: str, name: str | None = None, value: str | None = None) -> ServiceError:
    extra = {"ArgumentName": name, "ArgumentValue": value} if name else {}
    return ServiceError("InvalidArgument", message, 400, extra=extra)


def no_such_config(code: str, message: str, bucket: str) -> ServiceError:
    return ServiceError(code, message, 404, extra={"BucketName": bucket})


def no_such_tag_set(bucket: str) -> ServiceError:
    return no_such_config("NoSuchTagSet", "The TagSet does not exist", bucket)


def invalid_location(region: str) -> ServiceError:
    return ServiceError("InvalidLocationConstraint", "The specified location-constraint is not valid", 400,
                        extra={"LocationConstraint": region})


def illegal_location(region: str) -> ServiceError:
    return ServiceError("IllegalLocationConstraintException", f"The {region} location constraint is incompatible "
                        "for the region specific endpoint this request was sent to.", 400)


def entity_too_large(size: int, limit: int) -> ServiceError:
    return ServiceError("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size", 400,
                        extra={"ProposedSize": size, "MaxSizeAllowed": limit})


def malformed_xml() -> ServiceError:
    return ServiceError("MalformedXML", "The XML you provided was not well-formed or did not validate against our "
                        "published schema", 400)
