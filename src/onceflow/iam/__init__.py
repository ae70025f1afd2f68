"""iam: IAM (roles, policies, users) and STS (sessions) on one store; see setup()."""

from __future__ import annotations

from onceflow.iam.api import IamApi
from onceflow.iam.authorizer import make_authorizer
from onceflow.iam.resources import iam_resolver, sts_resolver
from onceflow.iam.service import IamService
from onceflow.iam.store import IamStore
from onceflow.iam.users import IamUsers
from onceflow.stack import Stack
from onceflow.sts.api import StsApi
from onceflow.sts.service import StsService


def setup(stack: Stack) -> None:
    """Build IAM and STS, register both APIs, the credential resolvers and the authorizer."""
    store = IamStore(stack.db)
    iam = IamService(store)
    users = IamUsers(store, iam)
    sts = StsService(store, iam, stack.settings)
    stack.registry.add_api("iam", IamApi(iam, users))
    stack.registry.add_api("sts", StsApi(sts))
    stack.services["iam"] = iam
    stack.services["iam_users"] = users
    stack.services["sts"] = sts
    stack.credential_resolvers.extend([sts.principal_for, users.principal_for])
    stack.resource_resolvers["iam"] = iam_resolver(store)
    stack.resource_resolvers["sts"] = sts_resolver
    # server.py may install it as well; doing it here keeps IAM enforced whoever composes the stack.
    stack.authorize = make_authorizer(stack)
    stack.on_reset.extend([sts.forget, users.forget, iam.forget])
