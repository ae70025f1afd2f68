"""iam: IAM (roles, policies, users, groups) and STS (sessions) on one store; see setup().

What other services use (all by account, IAM being global):
  stack.services["iam"].get_role_by_arn(account, role_arn) -> dict | None
  stack.services["iam"].role_trusts(account, role_arn, ("Service", "states.amazonaws.com")) -> bool
  stack.services["iam"].role_allows(account, role_arn, "logs:CreateLogStream", resource_arn) -> bool
  stack.services["sts"].issue_role_session(account, role_arn, session_name, duration_s=3600) -> credentials
  stack.authorize(ctx, params)  (installed here; server.py may install make_authorizer(stack) too)
"""

from __future__ import annotations

from onceflow.iam.account import AccountSettings
from onceflow.iam.account_api import AccountApi
from onceflow.iam.api import IamApi
from onceflow.iam.authorizer import make_authorizer
from onceflow.iam.groups import IamGroups
from onceflow.iam.groups_api import GroupsApi
from onceflow.iam.profiles import InstanceProfiles
from onceflow.iam.profiles_api import InstanceProfilesApi
from onceflow.iam.providers import IdentityProviders
from onceflow.iam.providers_api import ProvidersApi
from onceflow.iam.resources import iam_resolver, sts_resolver
from onceflow.iam.service import IamService
from onceflow.iam.service_roles import ServiceLinkedRolesApi
from onceflow.iam.simulate import SimulateApi
from onceflow.iam.store import IamStore
from onceflow.iam.users import IamUsers
from onceflow.stack import Stack
from onceflow.sts.api import StsApi
from onceflow.sts.federation import Federation
from onceflow.sts.service import StsService


def setup(stack: Stack) -> None:
    """Build IAM and STS, register both APIs, the credential resolvers and the authorizer."""
    store = IamStore(stack.db)
    iam = IamService(store)
    users = IamUsers(store, iam)
    sts = StsService(store, iam, stack.settings)
    providers = IdentityProviders(store)
    stack.registry.add_api("iam", IamApi(iam, users))
    stack.registry.add_api("iam", SimulateApi(iam))
    stack.registry.add_api("iam", GroupsApi(IamGroups(store), iam))
    stack.registry.add_api("iam", InstanceProfilesApi(InstanceProfiles(store), iam))
    stack.registry.add_api("iam", ProvidersApi(providers))
    stack.registry.add_api("iam", AccountApi(AccountSettings(store)))
    stack.registry.add_api("iam", ServiceLinkedRolesApi(iam))
    stack.services["iam_providers"] = providers
    stack.registry.add_api("sts", StsApi(sts, Federation(sts, store, providers)))
    stack.services["iam"] = iam
    stack.services["iam_users"] = users
    stack.services["sts"] = sts
    stack.credential_resolvers.extend([sts.credential_for, users.credential_for])
    stack.resource_resolvers["iam"] = iam_resolver(store)
    stack.resource_resolvers["sts"] = sts_resolver
    # server.py may install it as well; doing it here keeps IAM enforced whoever composes the stack.
    stack.authorize = make_authorizer(stack)
    stack.on_reset.extend([sts.forget, users.forget, iam.forget])
