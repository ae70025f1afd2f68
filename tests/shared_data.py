"""What the suite reads from outside the repository: the workspace's ../shared folder.

Only the AWS-recorded Step Functions conformance corpus is used from there (its runner and
recordings are not this project's to ship): the suite runs it when it is present, says in the
terminal summary when it is not (tests/conftest.py), and under CI=true its absence fails the run
(tests/test_self_contained.py). The seed labs' lab documents are only compared with the project's
own lab scripts when they are there; the scripts themselves live in examples/orders/labs/.
ONCEFLOW_SHARED (the folder) or ONCEFLOW_SFN_CORPUS (the corpus) point elsewhere, e.g. from a git
worktree, whose ../shared is not the workspace's.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ONCEFLOW_SHARED") or ROOT.parent / "shared")
SFN_CORPUS = Path(os.environ.get("ONCEFLOW_SFN_CORPUS") or SHARED / "conformance" / "sfn")
SEEDS = SHARED / "seeds"
# Case files (cases/ and cases_lambda/) in the corpus the suite was last run with: what goes unchecked without it.
SFN_CORPUS_CASES = 520


def sfn_corpus_present() -> bool:
    return (SFN_CORPUS / "cases").is_dir()


def shown(path: Path) -> str:
    """A path as the user should read it: relative to the repository when it is beside it."""
    try:
        return os.path.relpath(path, ROOT) if path.is_relative_to(ROOT.parent) else str(path)
    except ValueError:
        return str(path)


def missing_corpus_line() -> str:
    return f"onceflow: {shown(SFN_CORPUS)} missing: {SFN_CORPUS_CASES} conformance cases not run"
