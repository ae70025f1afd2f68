"""confine.copy_tree: what a timed-out worker's /tmp hands on (folders, files, links as links; no
FIFO opened, nothing followed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

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
