"""What `onceflow serve` leaves unimported until a request needs it (issue 23: start in 0.3 s).

Each of these costs a tenth of a second or more of start-up; a module-level import that brings one
back is a regression this catches (timings themselves are bench/bench_startup.py's)."""

from __future__ import annotations

import json
import subprocess
import sys

DEFERRED = ("boto3", "botocore.session", "botocore.client", "jsonata", "jinja2", "onceflow.prove.proof",
            "onceflow.console.app")

PROGRAM = r"""
import json, sys
import onceflow.cli, onceflow.faults.cli, onceflow.prove.cli  # what `onceflow serve` imports to parse its arguments
from onceflow.config import Settings
from onceflow.server import build_app, build_stack
stack = build_stack(Settings(in_memory=True, port=0))
app = build_app(stack)
loaded = [name for name, spec in app.specs.services.items() if "model" in vars(spec)]
print(json.dumps({"modules": sorted(m for m in %r if m in sys.modules), "models": loaded}))
stack.db.close()
"""


def test_a_started_server_has_imported_no_heavy_module_and_read_no_model() -> None:
    out = subprocess.run([sys.executable, "-c", PROGRAM % (DEFERRED,)], capture_output=True, text=True, check=True,
                         timeout=120)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found == {"modules": [], "models": []}
