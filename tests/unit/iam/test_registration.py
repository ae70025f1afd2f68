"""Every operation IAM and STS register is a real operation of the botocore model, and the ones the
issues name are all there."""

from __future__ import annotations

import botocore.session

from onceflow import iam, sts
from onceflow.config import Settings
from onceflow.stack import Stack
from onceflow.store.db import Database
from unit.wire.known_operations import SERVED_NEWER

REQUIRED = {
    "iam": {
        "CreateRole",
        "GetRole",
        "ListRoles",
        "UpdateRole",
        "DeleteRole",
        "UpdateAssumeRolePolicy",
        "TagRole",
        "UntagRole",
        "ListRoleTags",
        "PutRolePolicy",
        "GetRolePolicy",
        "DeleteRolePolicy",
        "ListRolePolicies",
        "CreatePolicy",
        "GetPolicy",
        "GetPolicyVersion",
        "ListPolicies",
        "DeletePolicy",
        "AttachRolePolicy",
        "DetachRolePolicy",
        "ListAttachedRolePolicies",
        "CreateUser",
        "GetUser",
        "DeleteUser",
        "CreateAccessKey",
        "ListAccessKeys",
        "DeleteAccessKey",
        "PutUserPolicy",
        "GetUserPolicy",
        "DeleteUserPolicy",
        "ListUserPolicies",
        # issue 22: groups
        "CreateGroup",
        "GetGroup",
        "ListGroups",
        "UpdateGroup",
        "DeleteGroup",
        "AddUserToGroup",
        "RemoveUserFromGroup",
        "ListGroupsForUser",
        "PutGroupPolicy",
        "GetGroupPolicy",
        "DeleteGroupPolicy",
        "ListGroupPolicies",
        "AttachGroupPolicy",
        "DetachGroupPolicy",
        "ListAttachedGroupPolicies",
        # issue 22: instance profiles, identity providers, account settings
        "CreateInstanceProfile",
        "GetInstanceProfile",
        "DeleteInstanceProfile",
        "ListInstanceProfiles",
        "AddRoleToInstanceProfile",
        "RemoveRoleFromInstanceProfile",
        "ListInstanceProfilesForRole",
        "CreateOpenIDConnectProvider",
        "GetOpenIDConnectProvider",
        "DeleteOpenIDConnectProvider",
        "ListOpenIDConnectProviders",
        "UpdateOpenIDConnectProviderThumbprint",
        "AddClientIDToOpenIDConnectProvider",
        "CreateSAMLProvider",
        "GetSAMLProvider",
        "DeleteSAMLProvider",
        "ListSAMLProviders",
        "CreateAccountAlias",
        "ListAccountAliases",
        "UpdateAccountPasswordPolicy",
        "GetAccountPasswordPolicy",
        # issue 22, session 13 (UpdateOpenIDConnectProvider only where the model has it: botocore 1.44)
        "GetAccountAuthorizationDetails",
        "GetContextKeysForCustomPolicy",
        "GetContextKeysForPrincipalPolicy",
        "CreateServiceSpecificCredential",
        "ListServiceSpecificCredentials",
        "ResetServiceSpecificCredential",
        "UpdateServiceSpecificCredential",
        "DeleteServiceSpecificCredential",
        "GetMFADevice",
        "TagMFADevice",
        "UntagMFADevice",
        "ListMFADeviceTags",
        "ResyncMFADevice",
        "ChangePassword",
        "SetSecurityTokenServicePreferences",
        "ListPoliciesGrantingServiceAccess",
        "EnableOutboundWebIdentityFederation",
        "DisableOutboundWebIdentityFederation",
        "GetOutboundWebIdentityFederationInfo",
        "ListOrganizationsFeatures",
        "EnableOrganizationsRootCredentialsManagement",
        "DisableOrganizationsRootCredentialsManagement",
        "EnableOrganizationsRootSessions",
        "DisableOrganizationsRootSessions",
        "GenerateServiceLastAccessedDetails",
        "GetServiceLastAccessedDetails",
        "GetServiceLastAccessedDetailsWithEntities",
    },
    "sts": {
        "GetCallerIdentity",
        "AssumeRole",
        "GetSessionToken",
        # issue 22: federation
        "AssumeRoleWithWebIdentity",
        "AssumeRoleWithSAML",
        "GetFederationToken",
        "GetAccessKeyInfo",
    },
}


def test_registered_operations_exist_in_the_models() -> None:
    stack = Stack(Settings(in_memory=True), Database(":memory:"))
    iam.setup(stack)
    sts.setup(stack)  # on the ports IAM's setup publishes
    session = botocore.session.get_session()
    for service, required in REQUIRED.items():
        model = session.get_service_model(service)
        registered = set(stack.registry.operations(service))
        # Only an operation newer than botocore's floor may be registered without the installed model having it.
        assert registered - SERVED_NEWER.get(service, frozenset()) <= set(model.operation_names)
        assert required <= registered, required - registered
