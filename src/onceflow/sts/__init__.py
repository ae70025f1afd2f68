"""sts: temporary credentials (role sessions, session and federation tokens) and who a caller is.

Set up after IAM (server.py SETUPS), from the ports IAM's setup publishes (sts/ports.py): its
store as `iam_directory`, its rules as `iam`, its identity providers as `iam_providers`; the
sessions it issues are in its own store (sts/store.py).
What other services use:
  stack.services["sts"].issue_role_session(account, role_arn, session_name, duration_s=3600) -> credentials
"""

from __future__ import annotations

from onceflow.stack import Stack
from onceflow.sts.api import StsApi
from onceflow.sts.federation import Federation
from onceflow.sts.ports import Directory, Providers, Roles
from onceflow.sts.resources import sts_resolver
from onceflow.sts.service import StsService
from onceflow.sts.store import SessionStore


def setup(stack: Stack) -> None:
    directory: Directory = stack.services["iam_directory"]
    roles: Roles = stack.services["iam"]
    providers: Providers = stack.services["iam_providers"]
    sts = StsService(directory, roles, stack.settings, SessionStore(stack.db))
    stack.registry.add_api("sts", StsApi(sts, Federation(sts, directory, providers)))
    stack.services["sts"] = sts
    # First: a session key (ASIA...) is the most common caller, and IAM users' keys never start so.
    stack.credential_resolvers.insert(0, sts.credential_for)
    stack.resource_resolvers["sts"] = sts_resolver
    stack.on_reset.append(sts.forget)
