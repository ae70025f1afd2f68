"""The wheel `pip install .` builds carries what `onceflow demo` and the console need at run time."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEEDED = [
    "onceflow/examples/orders/starter/app.py",
    "onceflow/examples/orders/protected/app.py",
    "onceflow/examples/orders/workflow-template.json",
    "onceflow/examples/orders/template.yaml",
    "onceflow/console/templates/base.html",
    "onceflow/console/static/console.js",
    "onceflow/lambda_/runtime/zygote.py",
]


@pytest.mark.slow
def test_the_wheel_ships_the_example_and_the_console_assets(tmp_path: Path) -> None:
    # Build from a clean copy: setuptools' build/ folder in the tree would carry files of older builds.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".venv", "artifacts", ".pytest_cache", ".ruff_cache"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
                            str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("onceflow-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [n for n in NEEDED if n not in names] == []
