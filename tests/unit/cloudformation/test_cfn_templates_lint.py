"""Every CloudFormation template the project ships passes cfn-lint, AWS's own linter: onceflow must
never need a template AWS would not accept."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = sorted([*ROOT.glob("tests/service/cfn_*.yaml"), *ROOT.glob("tests/service/sam_app/template.yaml"),
                    *ROOT.glob("src/onceflow/examples/**/template.yaml")])


def test_there_are_templates_to_lint() -> None:
    assert len(TEMPLATES) >= 2


def test_every_shipped_template_passes_cfn_lint() -> None:
    lint = shutil.which("cfn-lint")
    assert lint is not None, "cfn-lint is a test dependency (pyproject.toml)"
    done = subprocess.run([lint, *map(str, TEMPLATES)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
