"""sts: temporary credentials (role sessions, session and federation tokens) and who a caller is.

Set up after IAM (server.py SETUPS), from the ports IAM's setup publishes (sts/ports.py, reached as
stack.ports.iam_directory, iam_rules, iam_providers: its store, its role rules, its identity providers).
STS keeps the sessions it issues in its own store (sts/store.py).
What other services use (sts/ports.py SessionIssuer, as stack.ports.sessions):
  issue_role_session(account, role_arn, session_name, duration_s=3600) -> credentials
"""

from __future__ import annotations

from onceflow.stack import Stack
from onceflow.sts.api import StsApi
from onceflow.sts.federation import Federation
from onceflow.sts.resources import sts_resolver
from onceflow.sts.service import StsService
from onceflow.sts.store import SessionStore


def setup(stack: Stack) -> None:
    directory, roles, providers = stack.ports.iam_directory(), stack.ports.iam_rules(), stack.ports.iam_providers()
    sts = StsService(directory, roles, stack.settings, SessionStore(stack.db))
    keys = None
    if stack.settings.oidc_keys:
        from onceflow.sts.web_identity_keys import WebIdentityKeys  # cryptography, only when keys are given

        keys = WebIdentityKeys(stack.settings.oidc_keys)
    stack.registry.add_api("sts", StsApi(sts, Federation(sts, directory, providers, keys)))
    stack.services["sts"] = sts
    # First: a session key (ASIA...) is the most common caller, and IAM users' keys never start so.
    stack.credential_resolvers.insert(0, sts.credential_for)
    stack.resource_resolvers["sts"] = sts_resolver
    stack.on_reset.append(sts.forget)
