"""Checking and unpacking deployment packages.

Every entry is checked before anything is written: no absolute paths, no `..` components, no
symlinks, and the declared sizes within Lambda's unpacked quota. Unpacking goes to a temporary
folder renamed into place, so a half-unpacked package is never visible, and a folder named after
the code's SHA-256 is reused by every function and version with the same zip.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from onceflow.errors import ServiceError
from onceflow.lambda_ import errors


@dataclass(frozen=True)
class CheckedZip:
    data: bytes
    sha256_b64: str  # CodeSha256 as Lambda reports it
    sha256_hex: str  # folder name under the code root
    size: int


def check_zip(data: bytes, operation: str) -> CheckedZip:
    """Validate a zip upload; raise Lambda's error for anything it would refuse."""
    if len(data) > errors.MAX_ZIP_BYTES:
        raise errors.zip_too_large(operation)
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
    for info in infos:
        if not _safe_name(info.filename) or _is_symlink(info):
            raise errors.bad_zip()
        total += info.file_size
    if total > errors.MAX_UNZIPPED_BYTES:
        raise errors.unzipped_too_large()


def _safe_name(name: str) -> bool:
    if not name or "\x00" in name or "\\" in name:
        return False
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
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
            _extract(zf, tmp)
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
        if info.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src, open(out, "wb") as dst:
            # The declared sizes were checked; count real bytes too so a lying header cannot overrun.
            while chunk := src.read(1 << 20):
                written += len(chunk)
                if written > errors.MAX_UNZIPPED_BYTES:
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
