"""iam: IAM (roles, policies, users, groups, providers); see setup(). STS has a setup of its own
(sts/__init__.py), run after this one, on the ports published here (sts/ports.py).

What other services use (all by account, IAM being global), as stack.ports.roles (iam/ports.py RoleChecks):
  get_role_by_arn(account, role_arn) -> dict | None
  role_trusts(account, role_arn, ("Service", "states.amazonaws.com")) -> bool
  role_allows(account, role_arn, "logs:CreateLogStream", resource_arn) -> bool
  stack.authorize(ctx, params)  (installed here; server.py may install make_authorizer(stack) too)
"""

from __future__ import annotations

from onceflow.iam.access_advisor import AccessAdvisor, AccessAdvisorApi
from onceflow.iam.account import AccountSettings, OutboundFederation
from onceflow.iam.account_api import AccountApi, OutboundFederationApi
from onceflow.iam.api import IamApi
from onceflow.iam.authorization_details import AuthorizationDetails, AuthorizationDetailsApi
from onceflow.iam.authorizer import make_authorizer
from onceflow.iam.groups import IamGroups
from onceflow.iam.groups_api import GroupsApi
from onceflow.iam.last_used import LastUsed
from onceflow.iam.organizations import OrganizationsFeaturesApi
from onceflow.iam.profiles import InstanceProfiles
from onceflow.iam.profiles_api import InstanceProfilesApi
from onceflow.iam.providers import IdentityProviders
from onceflow.iam.providers_api import OidcConfigurationApi, ProvidersApi
from onceflow.iam.reports import Reports, ReportsApi
from onceflow.iam.resources import iam_resolver
from onceflow.iam.server_certs import ServerCertificates
from onceflow.iam.server_certs_api import ServerCertificatesApi
from onceflow.iam.service import IamService
from onceflow.iam.service_access import ServiceAccessApi
from onceflow.iam.service_credentials import ServiceCredentials, ServiceCredentialsApi
from onceflow.iam.service_roles import ServiceLinkedRolesApi
from onceflow.iam.simulate import SimulateApi
from onceflow.iam.store import IamStore
from onceflow.iam.user_credentials import UserCredentials
from onceflow.iam.user_credentials_api import UserCredentialsApi
from onceflow.iam.users import IamUsers
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build IAM, register its APIs, its credential resolver and the authorizer; publish the ports STS uses."""
    store = IamStore(stack.db)
    iam = IamService(store)
    users = IamUsers(store, iam)
    providers = IdentityProviders(store)
    last_used = LastUsed(store)
    stack.registry.add_api("iam", IamApi(iam, users, last_used))
    stack.registry.add_api("iam", SimulateApi(iam))
    stack.registry.add_api("iam", ServiceAccessApi(iam))
    stack.registry.add_api("iam", GroupsApi(IamGroups(store), iam))
    stack.registry.add_api("iam", InstanceProfilesApi(InstanceProfiles(store), iam))
    stack.registry.add_api("iam", ProvidersApi(providers))
    # UpdateOpenIDConnectProvider is newer than botocore's floor: registered whatever is installed, as
    # the wire routes only what the installed model has (reading the model here would cost every start).
    stack.registry.add_api("iam", OidcConfigurationApi(providers))
    stack.registry.add_api("iam", AccountApi(AccountSettings(store)))
    stack.registry.add_api("iam", OutboundFederationApi(OutboundFederation(store)))
    stack.registry.add_api("iam", OrganizationsFeaturesApi())
    stack.registry.add_api("iam", ServiceLinkedRolesApi(iam))
    stack.registry.add_api("iam", UserCredentialsApi(UserCredentials(store)))
    stack.registry.add_api("iam", ServerCertificatesApi(ServerCertificates(store)))
    stack.registry.add_api("iam", ReportsApi(Reports(store, last_used)))
    stack.registry.add_api("iam", AccessAdvisorApi(AccessAdvisor(iam, last_used)))
    stack.registry.add_api("iam", ServiceCredentialsApi(ServiceCredentials(store)))
    stack.registry.add_api("iam", AuthorizationDetailsApi(AuthorizationDetails(iam, last_used)))
    stack.services["iam_providers"] = providers
    stack.services["iam"] = iam
    stack.services["iam_users"] = users
    stack.services["iam_directory"] = store  # what STS reads and writes (sts/ports.py Directory)
    stack.credential_resolvers.append(users.credential_for)
    stack.resource_resolvers["iam"] = iam_resolver(store)
    # server.py may install it as well; doing it here keeps IAM enforced whoever composes the stack.
    stack.authorize = make_authorizer(stack, last_used)
    stack.on_reset.extend([users.forget, iam.forget, last_used.forget])
    stack.on_shutdown.append(last_used.flush)
