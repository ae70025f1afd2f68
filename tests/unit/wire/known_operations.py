"""The operations of the six served models as botocore 1.43.11 has them: the set the wire round-trip
tests hold to. An operation that a newer botocore adds is skipped there by name, not failed: onceflow
does not implement it, and a fresh install with that day's botocore must pass its own tests. To take
a newer model in: `python3 tests/unit/wire/known_operations.py > /tmp/k.py && mv /tmp/k.py tests/unit/wire/`."""

from __future__ import annotations

BOTOCORE = "1.43.11"
# Operations onceflow serves that botocore BOTOCORE does not model (newer than the runtime's floor).
# Each is registered whatever botocore is installed or only where its model has it; either way the
# wire routes it only where the installed model has it, and the round-trip tests hold to it there as
# to the operations below.
SERVED_NEWER: dict[str, frozenset[str]] = {
    "iam": frozenset(("UpdateOpenIDConnectProvider",)),
    "lambda": frozenset((
        "DeleteDurableExecution", "DeleteResourcePolicy", "GetResourcePolicy", "PauseDurableExecution",
        "PutResourcePolicy", "ResumeDurableExecution",
    )),
}

KNOWN: dict[str, frozenset[str]] = {
    "dynamodb": frozenset((
        "BatchExecuteStatement", "BatchGetItem", "BatchWriteItem", "CreateBackup", "CreateGlobalTable", "CreateTable",
        "DeleteBackup", "DeleteItem", "DeleteResourcePolicy", "DeleteTable", "DescribeBackup",
        "DescribeContinuousBackups", "DescribeContributorInsights", "DescribeEndpoints", "DescribeExport",
        "DescribeGlobalTable", "DescribeGlobalTableSettings", "DescribeImport", "DescribeKinesisStreamingDestination",
        "DescribeLimits", "DescribeTable", "DescribeTableReplicaAutoScaling", "DescribeTimeToLive",
        "DisableKinesisStreamingDestination", "EnableKinesisStreamingDestination", "ExecuteStatement",
        "ExecuteTransaction", "ExportTableToPointInTime", "GetItem", "GetResourcePolicy", "ImportTable", "ListBackups",
        "ListContributorInsights", "ListExports", "ListGlobalTables", "ListImports", "ListTables",
        "ListTagsOfResource", "PutItem", "PutResourcePolicy", "Query", "RestoreTableFromBackup",
        "RestoreTableToPointInTime", "Scan", "TagResource", "TransactGetItems", "TransactWriteItems", "UntagResource",
        "UpdateContinuousBackups", "UpdateContributorInsights", "UpdateGlobalTable", "UpdateGlobalTableSettings",
        "UpdateItem", "UpdateKinesisStreamingDestination", "UpdateTable", "UpdateTableReplicaAutoScaling",
        "UpdateTimeToLive",
    )),
    "stepfunctions": frozenset((
        "CreateActivity", "CreateStateMachine", "CreateStateMachineAlias", "DeleteActivity", "DeleteStateMachine",
        "DeleteStateMachineAlias", "DeleteStateMachineVersion", "DescribeActivity", "DescribeExecution",
        "DescribeMapRun", "DescribeStateMachine", "DescribeStateMachineAlias", "DescribeStateMachineForExecution",
        "GetActivityTask", "GetExecutionHistory", "ListActivities", "ListExecutions", "ListMapRuns",
        "ListStateMachineAliases", "ListStateMachineVersions", "ListStateMachines", "ListTagsForResource",
        "PublishStateMachineVersion", "RedriveExecution", "SendTaskFailure", "SendTaskHeartbeat", "SendTaskSuccess",
        "StartExecution", "StartSyncExecution", "StopExecution", "TagResource", "TestState", "UntagResource",
        "UpdateMapRun", "UpdateStateMachine", "UpdateStateMachineAlias", "ValidateStateMachineDefinition",
    )),
    "lambda": frozenset((
        "AddLayerVersionPermission", "AddPermission", "CheckpointDurableExecution", "CreateAlias",
        "CreateCapacityProvider", "CreateCodeSigningConfig", "CreateEventSourceMapping", "CreateFunction",
        "CreateFunctionUrlConfig", "DeleteAlias", "DeleteCapacityProvider", "DeleteCodeSigningConfig",
        "DeleteEventSourceMapping", "DeleteFunction", "DeleteFunctionCodeSigningConfig", "DeleteFunctionConcurrency",
        "DeleteFunctionEventInvokeConfig", "DeleteFunctionUrlConfig", "DeleteLayerVersion",
        "DeleteProvisionedConcurrencyConfig", "GetAccountSettings", "GetAlias", "GetCapacityProvider",
        "GetCodeSigningConfig", "GetDurableExecution", "GetDurableExecutionHistory", "GetDurableExecutionState",
        "GetEventSourceMapping", "GetFunction", "GetFunctionCodeSigningConfig", "GetFunctionConcurrency",
        "GetFunctionConfiguration", "GetFunctionEventInvokeConfig", "GetFunctionRecursionConfig",
        "GetFunctionScalingConfig", "GetFunctionUrlConfig", "GetLayerVersion", "GetLayerVersionByArn",
        "GetLayerVersionPolicy", "GetPolicy", "GetProvisionedConcurrencyConfig", "GetRuntimeManagementConfig",
        "Invoke", "InvokeAsync", "InvokeWithResponseStream", "ListAliases", "ListCapacityProviders",
        "ListCodeSigningConfigs", "ListDurableExecutionsByFunction", "ListEventSourceMappings",
        "ListFunctionEventInvokeConfigs", "ListFunctionUrlConfigs", "ListFunctionVersionsByCapacityProvider",
        "ListFunctions", "ListFunctionsByCodeSigningConfig", "ListLayerVersions", "ListLayers",
        "ListProvisionedConcurrencyConfigs", "ListTags", "ListVersionsByFunction", "PublishLayerVersion",
        "PublishVersion", "PutFunctionCodeSigningConfig", "PutFunctionConcurrency", "PutFunctionEventInvokeConfig",
        "PutFunctionRecursionConfig", "PutFunctionScalingConfig", "PutProvisionedConcurrencyConfig",
        "PutRuntimeManagementConfig", "RemoveLayerVersionPermission", "RemovePermission",
        "SendDurableExecutionCallbackFailure", "SendDurableExecutionCallbackHeartbeat",
        "SendDurableExecutionCallbackSuccess", "StopDurableExecution", "TagResource", "UntagResource", "UpdateAlias",
        "UpdateCapacityProvider", "UpdateCodeSigningConfig", "UpdateEventSourceMapping", "UpdateFunctionCode",
        "UpdateFunctionConfiguration", "UpdateFunctionEventInvokeConfig", "UpdateFunctionUrlConfig",
    )),
    "iam": frozenset((
        "AcceptDelegationRequest", "AddClientIDToOpenIDConnectProvider", "AddRoleToInstanceProfile", "AddUserToGroup",
        "AssociateDelegationRequest", "AttachGroupPolicy", "AttachRolePolicy", "AttachUserPolicy", "ChangePassword",
        "CreateAccessKey", "CreateAccountAlias", "CreateDelegationRequest", "CreateGroup", "CreateInstanceProfile",
        "CreateLoginProfile", "CreateOpenIDConnectProvider", "CreatePolicy", "CreatePolicyVersion", "CreateRole",
        "CreateSAMLProvider", "CreateServiceLinkedRole", "CreateServiceSpecificCredential", "CreateUser",
        "CreateVirtualMFADevice", "DeactivateMFADevice", "DeleteAccessKey", "DeleteAccountAlias",
        "DeleteAccountPasswordPolicy", "DeleteGroup", "DeleteGroupPolicy", "DeleteInstanceProfile",
        "DeleteLoginProfile", "DeleteOpenIDConnectProvider", "DeletePolicy", "DeletePolicyVersion", "DeleteRole",
        "DeleteRolePermissionsBoundary", "DeleteRolePolicy", "DeleteSAMLProvider", "DeleteSSHPublicKey",
        "DeleteServerCertificate", "DeleteServiceLinkedRole", "DeleteServiceSpecificCredential",
        "DeleteSigningCertificate", "DeleteUser", "DeleteUserPermissionsBoundary", "DeleteUserPolicy",
        "DeleteVirtualMFADevice", "DetachGroupPolicy", "DetachRolePolicy", "DetachUserPolicy",
        "DisableOrganizationsRootCredentialsManagement", "DisableOrganizationsRootSessions",
        "DisableOutboundWebIdentityFederation", "EnableMFADevice", "EnableOrganizationsRootCredentialsManagement",
        "EnableOrganizationsRootSessions", "EnableOutboundWebIdentityFederation", "GenerateCredentialReport",
        "GenerateOrganizationsAccessReport", "GenerateServiceLastAccessedDetails", "GetAccessKeyLastUsed",
        "GetAccountAuthorizationDetails", "GetAccountPasswordPolicy", "GetAccountSummary",
        "GetContextKeysForCustomPolicy", "GetContextKeysForPrincipalPolicy", "GetCredentialReport",
        "GetDelegationRequest", "GetGroup", "GetGroupPolicy", "GetHumanReadableSummary", "GetInstanceProfile",
        "GetLoginProfile", "GetMFADevice", "GetOpenIDConnectProvider", "GetOrganizationsAccessReport",
        "GetOutboundWebIdentityFederationInfo", "GetPolicy", "GetPolicyVersion", "GetRole", "GetRolePolicy",
        "GetSAMLProvider", "GetSSHPublicKey", "GetServerCertificate", "GetServiceLastAccessedDetails",
        "GetServiceLastAccessedDetailsWithEntities", "GetServiceLinkedRoleDeletionStatus", "GetUser", "GetUserPolicy",
        "ListAccessKeys", "ListAccountAliases", "ListAttachedGroupPolicies", "ListAttachedRolePolicies",
        "ListAttachedUserPolicies", "ListDelegationRequests", "ListEntitiesForPolicy", "ListGroupPolicies",
        "ListGroups", "ListGroupsForUser", "ListInstanceProfileTags", "ListInstanceProfiles",
        "ListInstanceProfilesForRole", "ListMFADeviceTags", "ListMFADevices", "ListOpenIDConnectProviderTags",
        "ListOpenIDConnectProviders", "ListOrganizationsFeatures", "ListPolicies", "ListPoliciesGrantingServiceAccess",
        "ListPolicyTags", "ListPolicyVersions", "ListRolePolicies", "ListRoleTags", "ListRoles",
        "ListSAMLProviderTags", "ListSAMLProviders", "ListSSHPublicKeys", "ListServerCertificateTags",
        "ListServerCertificates", "ListServiceSpecificCredentials", "ListSigningCertificates", "ListUserPolicies",
        "ListUserTags", "ListUsers", "ListVirtualMFADevices", "PutGroupPolicy", "PutRolePermissionsBoundary",
        "PutRolePolicy", "PutUserPermissionsBoundary", "PutUserPolicy", "RejectDelegationRequest",
        "RemoveClientIDFromOpenIDConnectProvider", "RemoveRoleFromInstanceProfile", "RemoveUserFromGroup",
        "ResetServiceSpecificCredential", "ResyncMFADevice", "SendDelegationToken", "SetDefaultPolicyVersion",
        "SetSecurityTokenServicePreferences", "SimulateCustomPolicy", "SimulatePrincipalPolicy", "TagInstanceProfile",
        "TagMFADevice", "TagOpenIDConnectProvider", "TagPolicy", "TagRole", "TagSAMLProvider", "TagServerCertificate",
        "TagUser", "UntagInstanceProfile", "UntagMFADevice", "UntagOpenIDConnectProvider", "UntagPolicy", "UntagRole",
        "UntagSAMLProvider", "UntagServerCertificate", "UntagUser", "UpdateAccessKey", "UpdateAccountPasswordPolicy",
        "UpdateAssumeRolePolicy", "UpdateDelegationRequest", "UpdateGroup", "UpdateLoginProfile",
        "UpdateOpenIDConnectProviderThumbprint", "UpdateRole", "UpdateRoleDescription", "UpdateSAMLProvider",
        "UpdateSSHPublicKey", "UpdateServerCertificate", "UpdateServiceSpecificCredential", "UpdateSigningCertificate",
        "UpdateUser", "UploadSSHPublicKey", "UploadServerCertificate", "UploadSigningCertificate",
    )),
    "sts": frozenset((
        "AssumeRole", "AssumeRoleWithSAML", "AssumeRoleWithWebIdentity", "AssumeRoot", "DecodeAuthorizationMessage",
        "GetAccessKeyInfo", "GetCallerIdentity", "GetDelegatedAccessToken", "GetFederationToken", "GetSessionToken",
        "GetWebIdentityToken",
    )),
    "logs": frozenset((
        "AssociateKmsKey", "AssociateSourceToS3TableIntegration", "CancelExportTask", "CancelImportTask",
        "CreateDelivery", "CreateExportTask", "CreateImportTask", "CreateLogAnomalyDetector", "CreateLogGroup",
        "CreateLogStream", "CreateLookupTable", "CreateScheduledQuery", "DeleteAccountPolicy",
        "DeleteDataProtectionPolicy", "DeleteDelivery", "DeleteDeliveryDestination", "DeleteDeliveryDestinationPolicy",
        "DeleteDeliverySource", "DeleteDestination", "DeleteIndexPolicy", "DeleteIntegration",
        "DeleteLogAnomalyDetector", "DeleteLogGroup", "DeleteLogStream", "DeleteLookupTable", "DeleteMetricFilter",
        "DeleteQueryDefinition", "DeleteResourcePolicy", "DeleteRetentionPolicy", "DeleteScheduledQuery",
        "DeleteSubscriptionFilter", "DeleteTransformer", "DescribeAccountPolicies", "DescribeConfigurationTemplates",
        "DescribeDeliveries", "DescribeDeliveryDestinations", "DescribeDeliverySources", "DescribeDestinations",
        "DescribeExportTasks", "DescribeFieldIndexes", "DescribeImportTaskBatches", "DescribeImportTasks",
        "DescribeIndexPolicies", "DescribeLogGroups", "DescribeLogStreams", "DescribeLookupTables",
        "DescribeMetricFilters", "DescribeQueries", "DescribeQueryDefinitions", "DescribeResourcePolicies",
        "DescribeSubscriptionFilters", "DisassociateKmsKey", "DisassociateSourceFromS3TableIntegration",
        "FilterLogEvents", "GetDataProtectionPolicy", "GetDelivery", "GetDeliveryDestination",
        "GetDeliveryDestinationPolicy", "GetDeliverySource", "GetIntegration", "GetLogAnomalyDetector", "GetLogEvents",
        "GetLogFields", "GetLogGroupFields", "GetLogObject", "GetLogRecord", "GetLookupTable", "GetQueryResults",
        "GetScheduledQuery", "GetScheduledQueryHistory", "GetTransformer", "ListAggregateLogGroupSummaries",
        "ListAnomalies", "ListIntegrations", "ListLogAnomalyDetectors", "ListLogGroups", "ListLogGroupsForQuery",
        "ListScheduledQueries", "ListSourcesForS3TableIntegration", "ListTagsForResource", "ListTagsLogGroup",
        "PutAccountPolicy", "PutBearerTokenAuthentication", "PutDataProtectionPolicy", "PutDeliveryDestination",
        "PutDeliveryDestinationPolicy", "PutDeliverySource", "PutDestination", "PutDestinationPolicy",
        "PutIndexPolicy", "PutIntegration", "PutLogEvents", "PutLogGroupDeletionProtection", "PutMetricFilter",
        "PutQueryDefinition", "PutResourcePolicy", "PutRetentionPolicy", "PutSubscriptionFilter", "PutTransformer",
        "StartLiveTail", "StartQuery", "StopQuery", "TagLogGroup", "TagResource", "TestMetricFilter",
        "TestTransformer", "UntagLogGroup", "UntagResource", "UpdateAnomaly", "UpdateDeliveryConfiguration",
        "UpdateLogAnomalyDetector", "UpdateLookupTable", "UpdateScheduledQuery",
    )),
}


def _generate() -> str:
    """This file's text for the installed botocore."""
    import botocore
    import botocore.session

    session = botocore.session.get_session()
    text = open(__file__).read()
    head = text[: text.index("KNOWN: dict")].replace(BOTOCORE, botocore.__version__)
    rows = ["KNOWN: dict[str, frozenset[str]] = {"]
    for service in KNOWN:
        rows.append(f'    "{service}": frozenset((')
        line = "        "
        for name in sorted(session.get_service_model(service).operation_names):
            if len(line) + len(name) + 4 > 120:
                rows.append(line.rstrip())
                line = "        "
            line += f'"{name}", '
        rows += [line.rstrip(), "    )),"]
    return head + "\n".join(rows) + "\n}" + text[text.index("\n\n\ndef _generate"):]


if __name__ == "__main__":
    print(_generate(), end="")
