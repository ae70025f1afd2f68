"""What the deploy helpers build: deployment packages from a folder, a file or code, and the roles a
test's functions and state machines run under when it names none."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from onceflow.testing.errors import OnceflowError

Source = str | Path | bytes

# Sessions of a role are always evaluated against its policies (README "IAM"): the default roles
# may do anything, so a test that names no role is about its code, not its permissions.
ALLOW_ALL = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
DEFAULT_ROLES = {"lambda.amazonaws.com": "onceflow-test-lambda-role",
                 "states.amazonaws.com": "onceflow-test-states-role"}


def trust(service: str) -> dict[str, Any]:
    return {"Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}]}


def package(source: Source, handler: str) -> bytes:
    """A zip from a folder (its files at the root), a .zip file (as is), a .py file (at the root), a
    string of code (saved as the handler's module, `app.handler` -> app.py) or zip bytes."""
    if isinstance(source, bytes):
        return source
    path = Path(source) if isinstance(source, Path) or _looks_like_path(source) else None
    if path is None:
        module = handler.rpartition(".")[0] or "app"
        return _zip({module.replace(".", "/") + ".py": str(source).encode()})
    if path.is_dir():
        files = {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*"))
                 if p.is_file() and "__pycache__" not in p.parts}
        if not files:
            raise OnceflowError(f"the folder {path} holds no files to deploy")
        return _zip(files)
    if path.is_file():
        return path.read_bytes() if path.suffix == ".zip" else _zip({path.name: path.read_bytes()})
    raise OnceflowError(f"source {source!s}: no such file or folder (code is given as a string with a newline)")


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and not text.lstrip().startswith(("def ", "import ", "from "))


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def definition_text(definition: str | Path | dict[str, Any]) -> str:
    """A state machine definition as a dict, JSON text or a path to a JSON file."""
    if isinstance(definition, dict):
        return json.dumps(definition)
    if isinstance(definition, Path) or (not definition.lstrip().startswith("{") and "\n" not in definition):
        path = Path(definition)
        if not path.is_file():
            raise OnceflowError(f"definition {definition!s}: no such file")
        return path.read_text()
    return definition
