"""After `pip install`, pytest loads the plugin by itself: a wheel of this tree installed in a
virtual environment (its dependencies from the system's, or from the running virtual environment's),
and a test there that uses the fixture with no `-p` option and no PYTHONPATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST = """
def test_installed(onceflow):
    onceflow.create_table("installed")
    assert onceflow.client("dynamodb").list_tables()["TableNames"] == ["installed"]
"""


@pytest.mark.slow
def test_the_installed_wheel_loads_the_plugin_by_itself(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".venv", "artifacts", ".pytest_cache", ".ruff_cache"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                            str(tmp_path), str(source)], capture_output=True, text=True, timeout=300, env=env)
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("onceflow-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    if sys.prefix != sys.base_prefix:
        # Run from a virtual environment, "the system's" packages are that environment's, which
        # --system-site-packages does not reach: list its folders (their .pth files stay unread,
        # so its own onceflow is not importable there).
        inner = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip()
        import site

        Path(inner, "outer-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    installed = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                               capture_output=True, text=True, timeout=300, env=env)
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_installed.py").write_text(TEST)
    run = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_installed.py"],
                         cwd=project, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1 passed" in run.stdout
    where = subprocess.run([str(python), "-c", "import onceflow.testing.plugin as p; print(p.__file__)"],
                           cwd=project, capture_output=True, text=True, timeout=60, env=env)
    assert where.stdout.strip().startswith(str(venv))  # the wheel's plugin ran, not this tree's
