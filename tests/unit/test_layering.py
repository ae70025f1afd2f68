"""The layering rules of docs/DESIGN.md ("Layers"), checked on src/onceflow's imports read with `ast`.

Every import counts, at module level or inside a function (a lazy import that dodges a circle is
still a circle); only imports under `if TYPE_CHECKING:` are left out, as they never run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
SERVICES = ("iam", "sts", "sfn", "ddb", "lambda_", "logs")
PURE_CORES = {  # no I/O, no store, no wire: what each may import from onceflow besides itself
    "onceflow.sfn.asl": ("onceflow.patterns", "onceflow.errors"),
    "onceflow.ddb.expr": ("onceflow.patterns", "onceflow.errors", "onceflow.ddb.values"),
    "onceflow.iam.policy": ("onceflow.patterns", "onceflow.errors"),
}
FLOOR = ("onceflow.registry", "onceflow.errors", "onceflow.config", "onceflow.store", "onceflow.context",
         "onceflow.pages", "onceflow.ports", "onceflow.awsmodels")
ENTRY_POINTS = ("onceflow.cli", "onceflow.demo", "onceflow.prove", "onceflow.testing")  # may start a server
I_O = ("sqlite3", "socket", "subprocess", "http", "urllib", "asyncio")


@dataclass(frozen=True)
class Import:
    source: str
    target: str  # the onceflow module imported, or the top-level name of another package
    line: int


def modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "onceflow").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = modules()


def _resolve(name: str) -> str:
    """The module an import names (`from a.b import c` is a.b.c when c is a module, else a.b)."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


def _type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: list[Import] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                continue
            if isinstance(child, ast.Import):
                out.extend(Import(module, _resolve(a.name) if a.name.startswith("onceflow") else a.name.split(".")[0],
                                  child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package[: len(package) - child.level + 1] + ([base] if base else []))
                if not base.startswith("onceflow"):
                    out.append(Import(module, base.split(".")[0], child.lineno))
                    continue
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    out.append(Import(module, full if full in MODULES else _resolve(base), child.lineno))
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return [i for i in out if i.target != module]


IMPORTS = [i for m in sorted(MODULES) for i in imports_of(m)]


def within(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def broken(rule: str, found: list[Import]) -> str:
    return f"{rule}:\n" + "\n".join(f"  {i.source} (line {i.line}) imports {i.target}" for i in found)


def test_the_walk_sees_the_packages_and_their_imports() -> None:
    assert {"onceflow.server", "onceflow.sfn.engine.runner", "onceflow.wire.app"} <= set(MODULES)
    runner = {i.target for i in IMPORTS if i.source == "onceflow.sfn.engine.runner"}
    assert {"onceflow.sfn.engine.effects", "onceflow.sfn.asl.budget", "sqlite3"} <= runner


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in IMPORTS:
        if i.target in MODULES:
            graph[i.source].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []
    for root in sorted(graph):  # Tarjan's strongly connected components, iteratively
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, successors = work[-1]
            nxt = next(successors, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    assert cycles == [], "import cycles (imports must only go downward):\n" + "\n".join(map(str, cycles))


def test_wire_imports_no_service() -> None:
    found = [i for i in IMPORTS if within(i.source, "onceflow.wire")
             and within(i.target, *(f"onceflow.{s}" for s in SERVICES), "onceflow.console", "onceflow.server")]
    assert not found, broken("wire/ knows bytes and protocols, not services", found)


def test_services_import_no_wire_console_or_server() -> None:
    found = [i for i in IMPORTS if within(i.source, *(f"onceflow.{s}" for s in SERVICES))
             and within(i.target, "onceflow.wire", "onceflow.console", "onceflow.server")]
    assert not found, broken("a service imports no wire/ (errors are data; wire/ renders them)", found)


@pytest.mark.parametrize("core", sorted(PURE_CORES))
def test_pure_cores_do_no_io_and_import_only_the_floor_they_need(core: str) -> None:
    allowed = (core, *PURE_CORES[core])
    found = [i for i in IMPORTS if within(i.source, core)
             and ((i.target.startswith("onceflow") and not within(i.target, *allowed)) or i.target in I_O)]
    assert not found, broken(f"{core} is a pure core (no I/O, no store, no wire)", found)


def test_the_floor_imports_nothing_above_it() -> None:
    found = [i for i in IMPORTS if within(i.source, *FLOOR)
             and i.target.startswith("onceflow") and not within(i.target, *FLOOR)]
    assert not found, broken("the floor (registry, errors, config, store/, context, pages, ports, awsmodels/) "
                             "stands alone", found)


def test_only_entry_points_import_the_composition_root() -> None:
    found = [i for i in IMPORTS if i.target == "onceflow.server" and not within(i.source, *ENTRY_POINTS)]
    assert not found, broken("server.py builds everything; nothing it builds imports it", found)


def test_the_sfn_engine_stands_below_the_api() -> None:
    found = [i for i in IMPORTS if within(i.source, "onceflow.sfn.engine")
             and within(i.target, "onceflow.sfn.api", "onceflow.sfn.service")]
    assert not found, broken("the engine is handed what it needs; it imports no API or service rules", found)


def test_iam_builds_no_sts_and_sts_uses_only_iams_policy_core_and_helpers() -> None:
    """STS has a setup of its own on typed ports (sts/ports.py): no arrow from iam/ to sts/, and
    from sts/ only to IAM's pure policy core and its shared helpers (iam/common.py, iam/errors.py)."""
    found = [i for i in IMPORTS if within(i.source, "onceflow.iam") and within(i.target, "onceflow.sts")]
    found += [i for i in IMPORTS if within(i.source, "onceflow.sts") and within(i.target, "onceflow.iam")
              and not within(i.target, "onceflow.iam.policy", "onceflow.iam.common", "onceflow.iam.errors")]
    assert not found, broken("STS reaches IAM only through its ports", found)
