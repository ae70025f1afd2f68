"""The routing index cached per botocore version (wire/spec_index.py), and the lazy models of Specs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from onceflow.awsmodels.files import ModelFiles
from onceflow.wire import spec_index
from onceflow.wire.specs import SERVICES, Specs, first_segment

NAMES = list(SERVICES)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "onceflow"


def test_a_first_start_writes_the_index_and_the_next_reads_it(cache: Path) -> None:
    loader = ModelFiles()
    first = spec_index.load(lambda: loader, NAMES, first_segment)
    [written] = cache.glob("spec-index-*.json")
    assert json.loads(written.read_text()) == first
    assert first["dynamodb"] == {"protocol": "json", "target_prefix": "DynamoDB_20120810", "segments": []}
    assert "2015-03-31" in first["lambda"]["segments"]

    def no_loader() -> ModelFiles:
        raise AssertionError("a start with the index cached reads no model")

    assert spec_index.load(no_loader, NAMES, first_segment) == first


def test_a_damaged_or_foreign_index_is_rebuilt(cache: Path) -> None:
    loader = ModelFiles()
    good = spec_index.load(lambda: loader, NAMES, first_segment)
    [path] = cache.glob("spec-index-*.json")
    for bad in ("{not json", json.dumps({"dynamodb": good["dynamodb"]}),
                json.dumps({**good, "sqs": {"protocol": 3, "target_prefix": None, "segments": []}})):
        path.write_text(bad)
        assert spec_index.load(lambda: loader, NAMES, first_segment) == good
        assert json.loads(path.read_text()) == good


def test_an_unwritable_cache_still_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the folder should be
    index = spec_index.load(ModelFiles, NAMES, first_segment)
    assert index["stepfunctions"]["target_prefix"] == "AWSStepFunctions"


def test_the_index_says_what_the_models_say(cache: Path) -> None:
    specs = Specs()
    assert not any("model" in vars(spec) for spec in specs.services.values())  # nothing loaded yet
    for name, spec in specs.services.items():
        assert spec.protocol == spec.model.protocol, name
        assert spec.target_prefix == spec.model.metadata.get("targetPrefix"), name
    rest = {segment for op_spec in specs.services.values() if op_spec.protocol == "rest-json"
            for segment in {first_segment(op.http["requestUri"]) for op in op_spec.operations.values()}}
    assert {("{" if "{" in s else s) for s in rest} == set(specs.rest_prefixes)
    assert specs.query_compatible["sqs"].protocol == "query"
    assert "SendMessage" in specs.query_compatible["sqs"].operations


def test_building_the_server_imports_no_botocore_model(cache: Path) -> None:
    """botocore's models (and urllib3 behind them) are never imported by the server: they were a fifth
    of the start-up time (bench/bench_startup.py); onceflow.awsmodels reads the models' files."""
    Specs()  # the index is cached now
    code = ("import sys; from onceflow.config import Settings; from onceflow.server import build_app, build_stack; "
            "build_app(build_stack(Settings(in_memory=True))); print(sorted(m for m in sys.modules "
            "if m.startswith(('botocore.', 'urllib3'))))")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout
