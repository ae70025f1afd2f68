"""What a PartiQL call asks IAM for: each statement's PartiQL action on its table or index, with the
dynamodb:FullTableScan and dynamodb:EnclosingOperation condition keys."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.ddb.expr.partiql import StatementError, parse
from onceflow.ddb.partiql.plan import Planner
from onceflow.errors import ServiceError

# The IAM action each statement kind needs on its table or index (developer guide, "IAM security policies
# with PartiQL for DynamoDB"). EXISTS reads the item it checks: PartiQLSelect (not confirmed against AWS).
STATEMENT_ACTIONS = {"SELECT": "dynamodb:PartiQLSelect", "EXISTS": "dynamodb:PartiQLSelect",
                     "INSERT": "dynamodb:PartiQLInsert", "UPDATE": "dynamodb:PartiQLUpdate",
                     "DELETE": "dynamodb:PartiQLDelete"}
AuthRequests = list[tuple[str, str, dict[str, list[str]]]]  # (action, resource ARN, condition keys)


def authorization(planner: Planner, account: str, region: str, operation: str,
              p: dict[str, Any]) -> AuthRequests:
    """(action, table or index ARN, condition keys) for each statement of a PartiQL call. A statement
    that does not parse is left out: its call refuses it with a ValidationException and does nothing."""
    statements = [p] if "Statement" in p else p.get("Statements") or p.get("TransactStatements") or []
    out: AuthRequests = []
    for s in statements:
        try:
            st = parse(s["Statement"])
        except StatementError:
            continue
        # A statement may name its table by ARN (another account's too: then it is that table's policy
        # that is asked, and PartiQL is not served across accounts).
        arn = st.table if st.table.startswith("arn:") else (
            f"arn:{partition(region)}:dynamodb:{region}:{account}:table/{st.table}")
        keys: dict[str, list[str]] = {}
        if st.index is not None:
            arn += f"/index/{st.index}"
        if st.kind == "SELECT":  # dynamodb:FullTableScan: whether the read scans instead of using a key
            keys["dynamodb:fulltablescan"] = ["true" if _scans(planner, account, region, s) else "false"]
        if operation == "ExecuteTransaction":
            keys["dynamodb:enclosingoperation"] = [operation]
        out.append((STATEMENT_ACTIONS[st.kind], arn, keys))
    return out


def _scans(planner: Planner, account: str, region: str, s: dict[str, Any]) -> bool:
    try:
        return planner.plan(account, region, s["Statement"], s.get("Parameters"), {}).op == "Scan"
    except ServiceError:  # refused when it runs, having read nothing
        return False


def statement_tables(p: dict[str, Any]) -> list[str]:
    """The tables a PartiQL request names (for IAM); statements that do not parse name none."""
    texts = [p["Statement"]] if "Statement" in p else [s["Statement"] for s in
                                                         p.get("Statements") or p.get("TransactStatements") or []]
    out = []
    for text in texts:
        try:
            name = parse(text).table
        except StatementError:
            continue
        if name not in out:
            out.append(name)
    return out
