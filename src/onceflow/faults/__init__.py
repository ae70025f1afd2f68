"""Fault injection: rules that make AWS calls fail, slow down, or take effect and lose their
answer, applied to HTTP calls (wire/app.py) and in-process calls (internal.call) alike.

setup() builds the store and the rule set and puts it in `stack.services["faults"]`; a reset
empties it (the store's rows go with every other table)."""

from __future__ import annotations

from onceflow.faults.engine import Faults
from onceflow.faults.store import FaultStore
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    faults = Faults(FaultStore(stack.db), stack.ports, stack.resource_resolvers)
    stack.services["faults"] = faults
    stack.on_reset.append(faults.forget)
    if stack.settings.faults_file is not None:
        from onceflow.faults.cli import read_rules_file

        faults.replace(read_rules_file(stack.settings.faults_file))
