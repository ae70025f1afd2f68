"""Lay out a state machine definition (ASL) as a drawing: boxes, groups and edges with coordinates.

Pure: no I/O. The template turns the drawing into SVG, so the graph shows without JavaScript and
every name goes through Jinja's escaping. The layout is a small layered one: ranks by longest
path from StartAt (back edges ignored), order within a rank by discovery, one barycentre pass.
Map and Parallel states are groups holding their branch(es), laid out recursively.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from onceflow.sfn.asl.load import ENDLESS, load_definition
from onceflow.sfn.asl.nodes import Program, State

NODE_H = 44
MIN_W, MAX_W, CHAR_W = 130, 300, 7.2
GAP_X, GAP_Y = 36, 54
GROUP_PAD, GROUP_HEAD = 16, 30
TERMINAL_R = 14
MAX_LABEL = 34
MAX_NAME = 38

START, END = "\x00start", "\x00end"  # names no ASL state can have (control characters are invalid)


@dataclass
class Node:
    name: str
    type: str
    x: float = 0.0
    y: float = 0.0
    w: float = MIN_W
    h: float = NODE_H
    kind: str = "state"  # state | group | start | end
    retry: str = ""  # a short summary of the Retry field, drawn as a loop badge
    children: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def label(self) -> str:
        return short(self.name, MAX_NAME)


@dataclass
class Edge:
    src: str
    dst: str
    kind: str  # next | choice | default | catch | end | start
    label: str = ""
    path: str = ""
    lx: float = 0.0
    ly: float = 0.0


@dataclass
class Drawing:
    width: float
    height: float
    nodes: list[Node]  # flat, groups before their children
    edges: list[Edge]


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def layout(definition: dict[str, Any]) -> Drawing:
    """The drawing of a whole definition, with Start and End terminals (read as the engine reads
    it: asl/load.py)."""
    program = load_definition(definition).program if isinstance(definition, dict) else None
    states: Mapping[str, State] = program.states if program is not None else {}
    start_at = program.start_at if program is not None else None
    w, h, nodes, edges = _scope(states, start_at or None, top=True)
    margin = 12
    _shift(nodes, edges, margin, margin)
    flat: list[Node] = []
    all_edges: list[Edge] = list(edges)
    _flatten(nodes, flat, all_edges)
    return Drawing(w + 2 * margin, h + 2 * margin, flat, all_edges)


# ---------------------------------------------------------------------- the graph of one scope
def _out_edges(name: str, state: State, top: bool) -> list[Edge]:
    out: list[Edge] = []
    kind = state.type
    if isinstance(state.get("Next"), str):
        out.append(Edge(name, state["Next"], "next"))
    if kind == "Choice":
        for rule in state.get("Choices") or []:
            if isinstance(rule, dict) and isinstance(rule.get("Next"), str):
                out.append(Edge(name, rule["Next"], "choice", short(condition(rule), MAX_LABEL)))
        if isinstance(state.get("Default"), str):
            out.append(Edge(name, state["Default"], "default", "Default"))
    for catcher in state.catchers:
        label = "Catch " + ", ".join(str(e) for e in catcher.error_equals if isinstance(e, str))
        out.append(Edge(name, catcher.next, "catch", short(label, MAX_LABEL)))
    if top and (state.get("End") is True or kind in ENDLESS):
        out.append(Edge(name, END, "end"))
    return out


def retry_summary(state: State) -> str:
    parts = []
    for retrier in state.retriers:
        errors = ", ".join(str(e) for e in retrier.error_equals if isinstance(e, str))
        parts.append(f"{errors} ×{retrier.max_attempts}")
    return short("Retry " + "; ".join(parts), MAX_LABEL + 10) if parts else ""


_OPS = {
    "Equals": "==", "GreaterThan": ">", "GreaterThanEquals": ">=", "LessThan": "<", "LessThanEquals": "<=",
    "Matches": "matches",
}  # fmt: skip


def condition(rule: dict[str, Any]) -> str:
    """A one-line reading of a Choice rule: `$.quantity > 0`, `not (...)`, `a and b`."""
    if isinstance(rule.get("Condition"), str):
        return rule["Condition"]
    if isinstance(rule.get("Not"), dict):
        return f"not ({condition(rule['Not'])})"
    for joiner in ("And", "Or"):
        if isinstance(rule.get(joiner), list):
            return f" {joiner.lower()} ".join(condition(r) for r in rule[joiner] if isinstance(r, dict))
    variable = rule.get("Variable", "")
    for key, value in rule.items():
        if key in ("Variable", "Next", "Comment", "Assign", "Output"):
            continue
        op = key.removesuffix("Path")
        for prefix in ("String", "Numeric", "Boolean", "Timestamp"):
            op = op.removeprefix(prefix)
        symbol = _OPS.get(op, op)
        if key.startswith("Is"):
            return f"{variable} {key}={value}"
        return f"{variable} {symbol} {value}"
    return str(variable)


def _size(name: str, state: State) -> Node:
    kind = state.type or "?"
    text = max(len(short(name, MAX_NAME)), len(kind) + 2)
    node = Node(name, kind, w=min(MAX_W, max(MIN_W, text * CHAR_W + 28)), retry=retry_summary(state))
    branches = _branches(state)
    if branches:
        node.kind = "group"
        laid = [_scope(states, start) for states, start in branches]
        inner_w = sum(b[0] for b in laid) + GAP_X * (len(laid) - 1)
        inner_h = max(b[1] for b in laid)
        node.w = max(node.w, inner_w + 2 * GROUP_PAD)
        node.h = GROUP_HEAD + inner_h + 2 * GROUP_PAD
        x = (node.w - inner_w) / 2
        for bw, _bh, nodes, edges in laid:
            _shift(nodes, edges, x, GROUP_HEAD + GROUP_PAD)
            node.children += nodes
            node.edges += edges
            x += bw + GAP_X
    return node


def _branches(state: State) -> list[tuple[Mapping[str, State], str | None]]:
    found: list[Program] = list(state.branches) + ([state.processor] if state.processor is not None else [])
    return [(p.states, p.start_at or None) for p in found if p.states]


def _scope(
    states: Mapping[str, State], start_at: str | None, top: bool = False
) -> tuple[float, float, list[Node], list[Edge]]:
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    if top:
        nodes[START] = Node(START, "Start", w=2 * TERMINAL_R, h=2 * TERMINAL_R, kind="start")
        if start_at is not None and start_at in states:
            edges.append(Edge(START, start_at, "start"))
    drawn = dict(states)
    for name, state in drawn.items():
        nodes[name] = _size(name, state)
        edges += [e for e in _out_edges(name, state, top) if e.dst in drawn or e.dst == END]
    if top:
        nodes[END] = Node(END, "End", w=2 * TERMINAL_R, h=2 * TERMINAL_R, kind="end")
    first = START if top else start_at
    ranks, order = _rank(list(nodes), edges, first)
    if top:  # End always sits alone at the bottom
        ranks[END] = max([r for n, r in ranks.items() if n != END], default=0) + 1
    rows = _rows(ranks, order, edges)
    width, height = _place(rows, nodes)
    for node in nodes.values():  # a group's inside was laid out relative to the group's corner
        if node.children:
            _shift(node.children, node.edges, node.x, node.y)
    _route(edges, nodes, ranks, width)
    return width, height, list(nodes.values()), edges


def _rank(names: list[str], edges: list[Edge], first: str | None) -> tuple[dict[str, int], list[str]]:
    """Longest-path ranks over forward edges; discovery order for ties; unreachable states after."""
    succ: dict[str, list[str]] = {n: [] for n in names}
    for e in edges:
        succ[e.src].append(e.dst)
    order: list[str] = []
    back: set[tuple[str, str]] = set()
    state: dict[str, int] = {}  # 1 = on stack, 2 = done

    def visit(root: str) -> None:
        stack = [(root, iter(succ[root]))]
        state[root] = 1
        order.append(root)
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                back.add((node, nxt))
            elif nxt not in state:
                state[nxt] = 1
                order.append(nxt)
                stack.append((nxt, iter(succ[nxt])))

    for root in ([first] if first in succ else []) + names:
        if root not in state:
            visit(root)
    rank = {n: 0 for n in names}
    for n in _topo(order, succ, back):
        for m in succ[n]:
            if (n, m) not in back:
                rank[m] = max(rank[m], rank[n] + 1)
    return rank, order


def _topo(order: list[str], succ: dict[str, list[str]], back: set[tuple[str, str]]) -> list[str]:
    indeg = {n: 0 for n in order}
    for n in order:
        for m in succ[n]:
            if (n, m) not in back:
                indeg[m] += 1
    ready = [n for n in order if indeg[n] == 0]
    out = []
    while ready:
        n = ready.pop(0)
        out.append(n)
        for m in succ[n]:
            if (n, m) not in back:
                indeg[m] -= 1
                if indeg[m] == 0:
                    ready.append(m)
    return out


def _rows(ranks: dict[str, int], order: list[str], edges: list[Edge]) -> list[list[str]]:
    rows: list[list[str]] = [[] for _ in range(max(ranks.values(), default=-1) + 1)]
    for name in order:
        rows[ranks[name]].append(name)
    preds: dict[str, list[str]] = {}
    for e in edges:
        if ranks[e.src] < ranks[e.dst]:
            preds.setdefault(e.dst, []).append(e.src)
    for i in range(1, len(rows)):  # one barycentre sweep keeps branches under their parents
        pos = {n: j for j, n in enumerate(rows[i - 1])}
        for k in range(i - 1):
            pos.update({n: j for j, n in enumerate(rows[k])})

        def bary(n: str, index: int, where: dict[str, int] = pos) -> float:
            ps = [where[p] for p in preds.get(n, []) if p in where]
            return sum(ps) / len(ps) if ps else float(index)

        rows[i] = [n for _, _, n in sorted((bary(n, j), j, n) for j, n in enumerate(rows[i]))]
    return rows


def _place(rows: list[list[str]], nodes: dict[str, Node]) -> tuple[float, float]:
    widths = [sum(nodes[n].w for n in row) + GAP_X * (len(row) - 1) for row in rows]
    width = max(widths, default=MIN_W)
    y = 0.0
    for row, row_w in zip(rows, widths, strict=True):
        x = (width - row_w) / 2
        row_h = max(nodes[n].h for n in row)
        for n in row:
            node = nodes[n]
            node.x, node.y = x, y + (row_h - node.h) / 2 if node.kind in ("start", "end") else y
            x += node.w + GAP_X
        y += row_h + GAP_Y
    return width, max(0.0, y - GAP_Y)


def _route(edges: list[Edge], nodes: dict[str, Node], ranks: dict[str, int], width: float) -> None:
    outs: dict[str, list[Edge]] = {}
    ins: dict[str, list[Edge]] = {}
    for e in edges:
        if ranks[e.dst] > ranks[e.src]:
            outs.setdefault(e.src, []).append(e)
            ins.setdefault(e.dst, []).append(e)
    for group in list(outs.values()) + list(ins.values()):  # left-to-right by where the other end is
        group.sort(key=lambda e: (nodes[e.dst].cx, nodes[e.src].cx))
    lane = 0
    for e in edges:
        a, b = nodes[e.src], nodes[e.dst]
        if ranks[e.dst] > ranks[e.src]:
            x1, y1 = _port(a, outs[e.src].index(e), len(outs[e.src])), a.y + a.h
            x2, y2 = _port(b, ins[e.dst].index(e), len(ins[e.dst])), b.y
            mid = (y1 + y2) / 2
            e.path = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}"
            e.lx, e.ly = (x1 + x2) / 2, mid
        else:  # a back edge (a loop) goes round the right-hand side
            lane += 1
            side = width + 10 * lane
            x1, y1, x2, y2 = a.x + a.w, a.y + a.h / 2, b.x + b.w, b.y + b.h / 2
            e.path = (f"M{x1:.1f},{y1:.1f} C{side:.1f},{y1:.1f} {side:.1f},{y1:.1f} {side:.1f},{(y1 + y2) / 2:.1f} "
                      f"C{side:.1f},{y2:.1f} {side:.1f},{y2:.1f} {x2:.1f},{y2:.1f}")
            e.lx, e.ly = side, (y1 + y2) / 2


def _port(node: Node, index: int, count: int) -> float:
    """Where the index-th of count edges meets a node's top or bottom: spread so they do not overlap."""
    if count <= 1 or node.kind in ("start", "end"):
        return node.cx
    step = min(24.0, node.w / (count + 1))
    return node.cx + (index - (count - 1) / 2) * step


def _shift(nodes: list[Node], edges: list[Edge], dx: float, dy: float) -> None:
    for n in nodes:
        n.x += dx
        n.y += dy
        _shift(n.children, n.edges, dx, dy)
    for e in edges:
        e.path = _shift_path(e.path, dx, dy)
        e.lx += dx
        e.ly += dy


def _shift_path(path: str, dx: float, dy: float) -> str:
    out = []
    for token in path.split(" "):
        cmd = token[0] if token[:1].isalpha() else ""
        x, y = (float(v) for v in token[len(cmd):].split(","))
        out.append(f"{cmd}{x + dx:.1f},{y + dy:.1f}")
    return " ".join(out)


def _flatten(nodes: list[Node], flat: list[Node], edges: list[Edge]) -> None:
    for n in nodes:
        flat.append(n)
        edges += n.edges
        _flatten(n.children, flat, edges)
