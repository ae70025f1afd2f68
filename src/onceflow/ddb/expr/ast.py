"""The one AST for all four expression kinds. Nodes are frozen, so a compiled tree can be cached.

A Path's elements are attribute names (str) and list indexes (int) once placeholders are resolved;
before resolution a name element may be a NameRef."""

from __future__ import annotations

from dataclasses import dataclass

# The functions of the four expression kinds and their operand counts.
CONDITION_FUNCS = {"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
                   "begins_with": 2, "contains": 2}
OPERAND_FUNCS = {"size": 1}
UPDATE_FUNCS = {"if_not_exists": 2, "list_append": 2}


@dataclass(frozen=True)
class NameRef:
    name: str  # "#n"


@dataclass(frozen=True)
class Path:
    elements: tuple[str | int | NameRef, ...]

    def show(self) -> str:
        """AWS's rendering in messages: [a, b, [2]]."""
        parts = [f"[{e}]" if isinstance(e, int) else (e.name if isinstance(e, NameRef) else e)
                 for e in self.elements]
        return "[" + ", ".join(parts) + "]"


@dataclass(frozen=True)
class ValueRef:
    name: str  # ":v"


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Operand, ...]


@dataclass(frozen=True)
class Arith:
    op: str  # "+" or "-"
    left: Operand
    right: Operand


Operand = Path | ValueRef | Call | Arith


@dataclass(frozen=True)
class Compare:
    op: str  # = <> < <= > >=
    left: Operand
    right: Operand


@dataclass(frozen=True)
class Between:
    subject: Operand
    low: Operand
    high: Operand


@dataclass(frozen=True)
class In:
    subject: Operand
    options: tuple[Operand, ...]


@dataclass(frozen=True)
class And:
    left: Condition
    right: Condition


@dataclass(frozen=True)
class Or:
    left: Condition
    right: Condition


@dataclass(frozen=True)
class Not:
    operand: Condition


@dataclass(frozen=True)
class FunctionCondition:
    call: Call


Condition = Compare | Between | In | And | Or | Not | FunctionCondition


@dataclass(frozen=True)
class SetAction:
    path: Path
    value: Operand


@dataclass(frozen=True)
class AddAction:
    path: Path
    value: ValueRef


@dataclass(frozen=True)
class DeleteAction:
    path: Path
    value: ValueRef


@dataclass(frozen=True)
class Update:
    sets: tuple[SetAction, ...] = ()
    removes: tuple[Path, ...] = ()
    adds: tuple[AddAction, ...] = ()
    deletes: tuple[DeleteAction, ...] = ()
    written: tuple[Path, ...] = ()  # every action's path in the order written (overlap messages name them so)

    def paths(self) -> list[Path]:
        return ([a.path for a in self.sets] + list(self.removes) + [a.path for a in self.adds]
                + [a.path for a in self.deletes])


@dataclass(frozen=True)
class Projection:
    paths: tuple[Path, ...]
