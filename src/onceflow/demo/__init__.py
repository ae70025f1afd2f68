"""`onceflow demo`: serve, provision the orders example, run both seed labs' executions, report."""

from onceflow.demo.run import run_demo

__all__ = ["run_demo"]
