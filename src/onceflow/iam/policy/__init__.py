"""The policy language: parse/validate documents, match wildcards, evaluate conditions and requests.

A pure package: no I/O, no store, no wire. `parse` is cached by document text, so a policy is
compiled once however often it is evaluated.
"""

from onceflow.iam.policy.document import MalformedPolicy, Policy, Statement, parse, stored
from onceflow.iam.policy.evaluate import Decision, Request, evaluate

__all__ = ["Decision", "MalformedPolicy", "Policy", "Request", "Statement", "evaluate", "parse", "stored"]
