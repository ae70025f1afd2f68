"""PartiQL for DynamoDB: statements planned as native operations (plan.py, rendering their clauses
with render.py), authorized per statement (authorize.py) and run (execute.py). The grammar is
ddb/expr/partiql.py."""

from onceflow.ddb.partiql.authorize import AuthRequests, statement_tables
from onceflow.ddb.partiql.execute import PARTIQL_OPERATIONS, PartiQL

__all__ = ["PARTIQL_OPERATIONS", "AuthRequests", "PartiQL", "statement_tables"]
