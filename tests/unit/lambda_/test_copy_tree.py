"""confine.copy_tree: what a timed-out worker's /tmp hands on (folders, files, links as links; no
FIFO opened, nothing followed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from onceflow.lambda_.runtime.confine import copy_tree


def test_folders_files_and_links_are_copied_and_nothing_else(tmp_path: Path) -> None:
    src, dst, outside = tmp_path / "src", tmp_path / "dst", tmp_path / "outside"
    (src / "sub").mkdir(parents=True)
    dst.mkdir()
    outside.mkdir()
    (outside / "secret").write_text("not for the copy")
    (src / "sub" / "data.bin").write_bytes(b"\0" * 3_000_000)
    (src / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(src / "run.sh", 0o750)
    os.symlink(outside, src / "link")  # a link to a folder elsewhere: kept as a link, not entered
    os.mkfifo(src / "pipe")  # opening it would block the copy
    copy_tree(str(src), str(dst))
    assert sorted(p.name for p in dst.iterdir()) == ["link", "run.sh", "sub"]
    assert (dst / "sub" / "data.bin").read_bytes() == b"\0" * 3_000_000
    assert stat.S_IMODE((dst / "run.sh").stat().st_mode) == 0o750
    assert (dst / "link").is_symlink() and os.readlink(dst / "link") == str(outside)


def test_set_id_bits_are_not_carried_over(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    dst.mkdir()
    (src / "tool").write_text("#!/bin/sh\n")
    os.chmod(src / "tool", 0o6755)  # set-user-id and set-group-id: the copy runs as root
    copy_tree(str(src), str(dst))
    assert stat.S_IMODE((dst / "tool").stat().st_mode) == 0o755


def test_a_file_system_mounted_inside_is_left_out(tmp_path: Path) -> None:
    """A timed-out worker's /tmp holds the host's Python folders mounted back into it (a virtualenv
    under /tmp): only the tmpfs's own files are the function's. Checked in a child's own mount
    namespace, so nothing is mounted on the host."""
    from onceflow.lambda_.runtime import confine

    if os.geteuid() != 0 and os.environ.get("CI") != "true":
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    src, dst = tmp_path / "src", tmp_path / "dst"
    (src / "venv" / "site-packages").mkdir(parents=True)
    dst.mkdir()
    (src / "mine.txt").write_text("the function's")
    pid = os.fork()
    if pid == 0:  # the child: its own mount namespace, a tmpfs standing in for the mounted folder
        ok = False
        try:
            lib = confine.libc()
            private = confine._MS_REC | confine._MS_PRIVATE
            if lib.unshare(confine._CLONE_NEWNS) == 0 and lib.mount(None, b"/", None, private, None) == 0:
                if confine._mount_tmpfs(str(src / "venv" / "site-packages"), "size=1m") == 0:
                    (src / "venv" / "site-packages" / "boto3.py").write_text("the host's")
                    copy_tree(str(src), str(dst))
                    ok = True
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child could not mount its tmpfs"
    assert (dst / "mine.txt").read_text() == "the function's"
    assert (dst / "venv").is_dir()  # the folders up to the mount point are the tmpfs's own
    assert not (dst / "venv" / "site-packages").exists()
