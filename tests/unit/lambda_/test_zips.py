"""Deployment package checks: every refused zip gets Lambda's error, and nothing is unpacked."""

from __future__ import annotations

import base64
import hashlib
import io
import stat
import zipfile
from pathlib import Path

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import zips

BAD_ZIP = "Could not unzip uploaded file. Please check your file, then try to upload again."


def make_zip(entries: list[tuple[str, bytes]], *, symlink: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


def refused(data: bytes) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        zips.check_zip(data)
    return err.value


def test_good_zip_hash_and_size() -> None:
    data = make_zip([("app.py", b"x = 1\n"), ("pkg/mod.py", b"")])
    checked = zips.check_zip(data)
    assert checked.sha256_b64 == base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert len(checked.sha256_b64) == 44
    assert checked.size == len(data)


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "/etc/evil.py", "C:/evil.py", "a\\..\\b.py"])
def test_escaping_entries_are_refused(name: str) -> None:
    err = refused(make_zip([("app.py", b""), (name, b"x")]))
    assert (err.code, err.message, err.status) == ("InvalidParameterValueException", BAD_ZIP, 400)
    assert err.extra == {"Type": "User", "message": BAD_ZIP}


def test_symlinks_are_refused() -> None:
    assert refused(make_zip([("app.py", b"")], symlink="link")).message == BAD_ZIP


@pytest.mark.parametrize("data", [b"", b"not a zip", b"PK\x03\x04garbage"])
def test_not_a_zip(data: bytes) -> None:
    assert refused(data).message == BAD_ZIP


def test_unzipped_size_limit() -> None:
    data = make_zip([("big.bin", b"\0" * (262_144_000 + 1))])
    err = refused(data)
    assert (err.code, err.message) == (
        "InvalidParameterValueException", "Unzipped size must be smaller than 262144000 bytes"
    )  # fmt: skip


def upload_refused(code: dict[str, bytes], body_bytes: int) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        zips.check_upload(code, body_bytes, "CreateFunction")
    return err.value


def test_zipped_size_limit() -> None:
    zipped = b"\0" * (50 * 1024 * 1024 + 1)
    err = upload_refused({"ZipFile": zipped}, len(zipped))  # the zip's limit is named before the request's
    assert (err.code, err.status) == ("RequestEntityTooLargeException", 413)
    assert err.message == "Zipped size must be smaller than 52428800 bytes"


def test_request_size_limit() -> None:
    err = upload_refused({"S3Bucket": b"b"}, 70_167_211 + 1)
    assert (err.code, err.status) == ("RequestEntityTooLargeException", 413)
    assert err.message == "Request must be smaller than 70167211 bytes for the CreateFunction operation"


def test_unpack_is_idempotent_and_keeps_modes(tmp_path: Path) -> None:
    data = make_zip([("app.py", b"x = 1\n"), ("lib/a.py", b"y = 2\n")])
    checked = zips.check_zip(data)
    first = zips.unpack(checked, tmp_path)
    assert first == tmp_path / checked.sha256_hex
    assert (first / "lib" / "a.py").read_bytes() == b"y = 2\n"
    assert zips.unpack(checked, tmp_path) == first
    assert [p.name for p in tmp_path.iterdir()] == [checked.sha256_hex]  # no temporary folder left behind


def test_ensure_unpacked_restores_from_store(tmp_path: Path) -> None:
    data = make_zip([("app.py", b"x = 1\n")])
    sha = hashlib.sha256(data).hexdigest()
    folder = zips.ensure_unpacked(sha, tmp_path, {sha: data}.__getitem__)
    assert (folder / "app.py").read_bytes() == b"x = 1\n"


def with_nul(name: str) -> bytes:
    """A zip whose entry name holds a NUL byte (zipfile cannot write one: patched in afterwards)."""
    placeholder = name.replace("\x00", "#")
    data = make_zip([("app.py", b""), (placeholder, b"x")])
    return data.replace(placeholder.encode(), name.encode())


@pytest.mark.parametrize(
    "entries",
    [
        [("a", b"x"), ("a/b.py", b"")],  # a file, then a folder of the same name
        [("a/b.py", b""), ("a", b"x")],  # the other order
        [("a/", b""), ("a", b"x")],  # a folder entry and a file entry
        [("x" * 256 + ".py", b"")],  # a component over NAME_MAX
        [("d/" + "é" * 128, b"")],  # 256 bytes in UTF-8, 128 characters
        [("a/" * 2000 + "deep.py", b"")],  # 2,000 levels: beyond PATH_MAX once unpacked
        [(".", b"x")],  # the folder itself as a file
    ],
    ids=["file-then-folder", "folder-then-file", "dir-entry-and-file", "long-name", "long-utf8", "deep", "dot"],
)
def test_names_no_file_system_holds_are_refused(entries: list[tuple[str, bytes]]) -> None:
    err = refused(make_zip([("app.py", b""), *entries]))
    assert (err.code, err.message, err.status) == ("InvalidParameterValueException", BAD_ZIP, 400)


@pytest.mark.parametrize("name", ["a\x00b.py", "evil.py\x00/../../x"])
def test_nul_in_a_name_is_refused(name: str) -> None:
    data = with_nul(name)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:  # zipfile itself cuts the name at the NUL
        assert any("\x00" in info.orig_filename for info in zf.infolist())
    assert refused(data).message == BAD_ZIP


def test_names_at_the_limits_unpack(tmp_path: Path) -> None:
    long_part = "x" * 252 + ".py"  # exactly 255 bytes
    deep = "d/" * 100 + "leaf.py"
    checked = zips.check_zip(make_zip([("app.py", b"1"), (long_part, b"2"), (deep, b"3")]))
    folder = zips.unpack(checked, tmp_path)
    assert (folder / long_part).read_bytes() == b"2"
    assert (folder.joinpath(*deep.split("/"))).read_bytes() == b"3"
    assert all(p.resolve().is_relative_to(folder.resolve()) for p in folder.rglob("*"))
