"""A clone needs nothing outside the repository: the seed labs' scripts and the documents the README
links are in it; the one outside input, the AWS-recorded conformance corpus, is reported when it is
missing and required under CI=true."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from scenarios.labs import LAB_DOCUMENTS, LAB_PROJECT, LABS, PROJECT_CD, lab_commands, load_lab
from shared_data import ROOT, SEEDS, SFN_CORPUS, SFN_CORPUS_CASES, missing_corpus_line, sfn_corpus_present, shown

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "orders" / "README.md"]
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
_OUTSIDE = re.compile(r"\.\./shared/[\w./-]*")


def test_the_lab_scripts_are_in_the_repository() -> None:
    assert sorted(p.name for p in LABS.glob("*.sh")) == sorted(set(LAB_DOCUMENTS.values()))
    for name in set(LAB_DOCUMENTS.values()):
        commands = load_lab(name)
        assert commands[0] == PROJECT_CD and commands[-1].startswith("rm -f ")
        assert [c for c in commands if LAB_PROJECT in c and c != PROJECT_CD] == [], "only cd names the folder"
    assert (ROOT / "examples" / "orders" / "labs").resolve() == LABS.resolve()


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"no lab documents at {shown(SEEDS)} to compare the scripts with")
@pytest.mark.parametrize("document", sorted(LAB_DOCUMENTS))
def test_a_lab_script_carries_its_documents_commands(document: str) -> None:
    written = lab_commands((SEEDS / document).read_text(encoding="utf-8"))
    script = [f"cd {LAB_PROJECT}" if c == PROJECT_CD else c for c in load_lab(LAB_DOCUMENTS[document])]
    assert script == written


def _links(doc: Path) -> list[str]:
    return [t for t in _LINK.findall(doc.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_documents_point_only_inside_the_repository(doc: Path) -> None:
    assert [t for t in _links(doc) if not (doc.parent / t).exists()] == []
    assert [t for t in _links(doc) if not (doc.parent / t).resolve().is_relative_to(ROOT)] == []
    # The one thing outside that a document may name: where the conformance corpus is looked for.
    named = {ref.rstrip("/.") for ref in _OUTSIDE.findall(doc.read_text(encoding="utf-8"))}
    assert named <= {"../shared/conformance/sfn"}


def test_the_readme_links_the_design_in_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/DESIGN.md)" in readme and "](docs/CONTRACTS.md)" in readme
    assert "../shared/DESIGN.md" not in readme


def test_the_conformance_corpus_is_there_or_ci_fails() -> None:
    if sfn_corpus_present():
        cases = list((SFN_CORPUS / "cases").glob("*/*.json")) + list((SFN_CORPUS / "cases_lambda").glob("*/*.json"))
        assert (SFN_CORPUS / "run.py").is_file()
        # The count the summary reports when the corpus is missing; update it with the corpus.
        assert len(cases) == SFN_CORPUS_CASES
    elif os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{missing_corpus_line()} (CI=true requires the corpus)")
    else:
        pytest.skip(missing_corpus_line())
