"""The seed labs' shell commands, from the project's lab scripts (examples/orders/labs/).

Each script holds one lab document's commands in its order and as written, with comments between
them (tests/test_self_contained.py compares them with the documents when ../shared/seeds is there).
`lab_commands` splits a script, or a lab document (prose with command blocks between paragraphs),
into its commands, each exactly as written (heredocs, line continuations and for-loops kept whole),
so the acceptance tests run what a learner types, command for command, and can tell the output of
each command apart.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

LABS = Path(__file__).resolve().parents[2] / "src" / "onceflow" / "examples" / "orders" / "labs"
IDEMPOTENCY_LAB = "idempotency.sh"  # lab documents 000 (Chinese) and 001 (Japanese): the same commands
RETRY_LAB = "retry.sh"  # lab document 002
# Which seed lab document each script carries.
LAB_DOCUMENTS = {"000_2180989ed9c71be5.txt": IDEMPOTENCY_LAB, "001_e6f04f0cbe250192.txt": IDEMPOTENCY_LAB,
                 "002_c9e3c66d3ef8cee8.txt": RETRY_LAB}
LAB_PROJECT = "/home/labex/project"
# The scripts' one change to the documents: the project folder may be another (LAB_PROJECT).
PROJECT_CD = f'cd "${{LAB_PROJECT:-{LAB_PROJECT}}}"'

_START = re.compile(r"^(cd |aws |cat > |zip |jq |rm -f |for |[A-Z_]+=)")
_HEREDOC = re.compile(r"<<'?([A-Z]+)'?\s*$")


def _command(lines: list[str], i: int) -> int:
    """Return the index after the shell command starting at lines[i]."""
    line = lines[i]
    heredoc = _HEREDOC.search(line)
    if heredoc:
        end = lines.index(heredoc.group(1), i + 1)
        return end + 1
    if line.startswith("for "):
        while lines[i].strip() != "done":
            i += 1
        return i + 1
    while lines[i].endswith("\\"):
        i += 1
    return i + 1


def lab_commands(text: str) -> list[str]:
    """Every shell command of a lab document, in order, each exactly as written."""
    lines = text.splitlines()
    commands: list[str] = []
    i = 0
    while i < len(lines):
        if not _START.match(lines[i]):
            i += 1
            continue
        end = _command(lines, i)
        commands.append("\n".join(lines[i:end]))
        i = end
    return commands


def load_lab(name: str) -> list[str]:
    """The commands of a lab script in examples/orders/labs/."""
    return lab_commands((LABS / name).read_text(encoding="utf-8"))


@dataclass
class LabRun:
    commands: list[str]
    outputs: list[str]  # stdout+stderr of each command, in order
    returncode: int

    def output(self, fragment: str, nth: int = 0) -> str:
        """The output of the nth command whose text contains `fragment`."""
        found = [out for cmd, out in zip(self.commands, self.outputs, strict=True) if fragment in cmd]
        if len(found) <= nth:
            raise AssertionError(f"no command #{nth} containing {fragment!r}")
        return found[nth]

    def transcript(self) -> str:
        return "\n".join(f"$ {c}\n{o}" for c, o in zip(self.commands, self.outputs, strict=True))


def run_lab(commands: list[str], project: Path, env: dict[str, str], timeout: float = 900) -> LabRun:
    """Run the commands in one bash session (shell variables carry over, as in a learner's
    terminal), with only the project folder changed; split the merged output per command."""
    marker = "@@onceflow-command@@"
    script = "exec 2>&1\n" + "".join(f"echo '{marker}'\n{command}\n" for command in commands)
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=timeout, cwd=project,
                          env={**env, "LAB_PROJECT": str(project)}, stdin=subprocess.DEVNULL)
    outputs = proc.stdout.split(marker + "\n")[1:]
    if len(outputs) != len(commands):
        raise AssertionError(f"lab stopped after {len(outputs)} of {len(commands)} commands:\n{proc.stdout[-3000:]}")
    return LabRun(commands, outputs, proc.returncode)
