"""Checking and unpacking deployment packages.

Every entry is checked before anything is written: no absolute paths, no `..` components, no
symlinks, no NUL (zipfile would silently cut the name there), no name the file system cannot hold
(a component over 255 bytes, a path over MAX_PATH_BYTES), no entry that is both a file and a
folder, and the declared sizes within Lambda's unpacked quota. Each is Lambda's "Could not
unzip" InvalidParameterValueException, never a server error. Unpacking goes to a temporary
folder renamed into place, so a half-unpacked package is never visible, and a folder named after
the code's SHA-256 is reused by every function and version with the same zip.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import io
import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from onceflow.errors import ServiceError
from onceflow.lambda_ import errors

MAX_NAME_BYTES = 255  # one path component (NAME_MAX)
# A whole entry name: PATH_MAX (4096) less room for the folder it is unpacked in (the data folder's
# or the sandbox's copy), so the name that passed the check can always be created.
MAX_PATH_BYTES = 3072


@dataclass(frozen=True)
class CheckedZip:
    data: bytes
    sha256_b64: str  # CodeSha256 as Lambda reports it
    sha256_hex: str  # folder name under the code root
    size: int


def unzipped_size(data: bytes) -> int:
    """What a checked zip holds once unpacked (the declared sizes its check bounded)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return sum(info.file_size for info in zf.infolist())


def check_upload(code: Mapping[str, Any], body_bytes: int, operation: str) -> None:
    """The limits of a request that uploads code: a zip sent in it (not one read from S3, which may be
    larger) over 50 MiB, then the request itself over its limit; the zipped size is checked first
    (recorded: test_lambda_api test_oversized_zipped_create_lambda, test_oversized_request_create_lambda)."""
    data = code.get("ZipFile")
    if data is not None and len(data) > errors.MAX_ZIP_BYTES:
        raise errors.zipped_too_large()
    if body_bytes > errors.MAX_ZIP_REQUEST_BYTES:
        raise errors.request_too_large(operation)


def check_zip(data: bytes) -> CheckedZip:
    """Validate a zip's content; raise Lambda's error for anything it would refuse."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            _check_entries(zf.infolist())
    except ServiceError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        raise errors.bad_zip() from exc
    digest = hashlib.sha256(data).digest()
    return CheckedZip(data, base64.b64encode(digest).decode(), digest.hex(), len(data))


def _check_entries(infos: list[zipfile.ZipInfo]) -> None:
    total = 0
    files: set[tuple[str, ...]] = set()
    folders: set[tuple[str, ...]] = set()
    for info in infos:
        if not _safe_name(info.orig_filename) or _is_symlink(info):
            raise errors.bad_zip()
        parts = PurePosixPath(info.filename).parts
        if not parts and not info.is_dir():  # "." as a file: it would be the folder itself
            raise errors.bad_zip()
        folders.update(parts[:i] for i in range(1, len(parts)))
        (folders if info.is_dir() else files).add(parts)
        total += info.file_size
    if not files.isdisjoint(folders):  # "a" a file and "a/b" in it: no file system holds both
        raise errors.bad_zip()
    if not unzipped_fits(total):
        raise errors.unzipped_too_large()


def unzipped_fits(total: int) -> bool:
    """AWS's words are "must be smaller than 262144000 bytes", and so it refuses a zip that unpacks to
    exactly that (recorded: a 262,144,000-byte handler refused, one 1,000 bytes smaller accepted)."""
    return total < errors.MAX_UNZIPPED_BYTES


def _safe_name(name: str) -> bool:
    if not name or "\x00" in name or "\\" in name:
        return False
    try:
        encoded = name.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no file can be named so
        return False
    if len(encoded) > MAX_PATH_BYTES:
        return False
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        return False
    if any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in path.parts):
        return False
    return ".." not in path.parts


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    mode = info.external_attr >> 16
    return info.create_system == 3 and stat.S_ISLNK(mode)


def unpack(checked: CheckedZip, root: Path) -> Path:
    """Unpack into root/<sha256 hex> (idempotent); return that folder."""
    target = root / checked.sha256_hex
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".unpack-", dir=root))
    try:
        with zipfile.ZipFile(io.BytesIO(checked.data)) as zf:
            try:
                _extract(zf, tmp)
            except (NotADirectoryError, IsADirectoryError, FileExistsError, UnicodeEncodeError) as exc:
                raise errors.bad_zip() from exc  # what the checks above should have caught
            except OSError as exc:
                if exc.errno in (errno.ENAMETOOLONG, errno.EILSEQ, errno.EINVAL):
                    raise errors.bad_zip() from exc
                raise
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():  # lost a race with another unpacker of the same code: fine
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _extract(zf: zipfile.ZipFile, dest: Path) -> None:
    written = 0
    for info in zf.infolist():
        out = dest.joinpath(*PurePosixPath(info.filename).parts)
        if not out.resolve().is_relative_to(dest.resolve()):  # never reached after the checks: a guard
            raise errors.bad_zip()
        if info.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src, open(out, "wb") as dst:
            # The declared sizes were checked; count real bytes too so a lying header cannot overrun.
            while chunk := src.read(1 << 20):
                written += len(chunk)
                if not unzipped_fits(written):
                    raise errors.unzipped_too_large()
                dst.write(chunk)
        mode = (info.external_attr >> 16) & 0o777
        os.chmod(out, mode | 0o644 if mode else 0o644)


def ensure_unpacked(sha256_hex: str, root: Path, load: Callable[[str], bytes]) -> Path:
    """The code folder for sha256_hex, unpacking the stored zip first if needed (after a restart)."""
    target = root / sha256_hex
    if target.is_dir():
        return target
    data = load(sha256_hex)
    digest = hashlib.sha256(data).digest()
    return unpack(CheckedZip(data, base64.b64encode(digest).decode(), digest.hex(), len(data)), root)
