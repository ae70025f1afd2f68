"""The messages of global tables: replicas in UpdateTable's ReplicaUpdates, the legacy 2017.11.29
version's calls (ddb/replicas.py, ddb/legacy_global.py, ddb/replica_scaling.py). Split from errors.py
by concept; the same rules: AWS's wording, raised by name."""

from __future__ import annotations

from onceflow.ddb.errors import ddb_error
from onceflow.errors import ServiceError, validation_error

# The local region named in ReplicaUpdates: aws/aws-cli#4906, aws/aws-cdk#6287 (AWS's answer, quoted).
LOCAL_REGION_REPLICA = ("Cannot add, delete, or update the local region through ReplicaUpdates. "
                        "Use CreateTable, DeleteTable, or UpdateTable as required.")
# A provisioned table without write auto scaling gaining a replica (AWS's answer as Terraform users quote it).
REPLICA_CAPACITY = "Table write capacity should either be Pay-Per-Request or AutoScaled."
# UNCONFIRMED wording: the stream of a global table disabled (scylladb's test against DynamoDB matches only
# 'not allowed.*Global Table').
GLOBAL_STREAM_DISABLE = "Disabling the stream is not allowed for a table that is part of a Global Table"
# The legacy version's CreateGlobalTable, as DynamoDB answers it now (recorded by scylladb's
# test/alternator/test_global_tables.py against DynamoDB).
LEGACY_UNSUPPORTED = ("DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB "
                      "global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")


# UNCONFIRMED wordings; the rules are UpdateTable's (API reference): Disassociate acts on the local replica
# only, alone in its request, once disassociation protection is off; that protection changes alone, on a replica.
DISASSOCIATE_ALONE = ("The Disassociate action must be the only replica update in the request, "
                      "and no other update may be combined with it")
DISASSOCIATE_LOCAL_ONLY = "Only the local replica can be disassociated: RegionName must be the Region of the request"
DISASSOCIATION_PROTECTED = ("Replica cannot be disassociated as it is currently protected against disassociation. "
                            "Disable disassociation protection first.")
PROTECTION_ALONE = "DisassociationProtectionEnabled cannot be combined with any other change in the same request"
PROTECTION_NOT_REPLICA = "DisassociationProtectionEnabled can only be set on a global table replica"


def replica_exists(name: str) -> ServiceError:
    # AWS's text, typo included, for a region that already holds a table of that name; UNCONFIRMED that a
    # region already in the group gets the same.
    return validation_error(f"Failed to create a the new replica of table with name: '{name}' because one or "
                            "more replicas already existed as tables.")


def replica_not_in_group(name: str, region: str) -> ServiceError:
    # UNCONFIRMED wording: an Update or Delete of a region that is not a replica of the table.
    return validation_error(f"Update global table operation failed because one or more replicas were not part "
                            f"of the global table: {name} ({region})")


def replica_recent_source(region: str) -> ServiceError:
    # UNCONFIRMED wording; the rule (a replica that sourced a new one cannot go for 24 hours) is AWS's.
    return validation_error(f"Replica cannot be deleted because it has acted as a source region for new "
                            f"replica(s) being added to the table in the last 24 hours: {region}")


def replica_index_not_found(name: str) -> ServiceError:
    # UNCONFIRMED wording: ReplicaUpdates naming a global secondary index the table does not have.
    return validation_error(f"One or more parameter values were invalid: Global Secondary Index {name} "
                            "does not exist")


def global_table_not_found(name: str) -> ServiceError:
    return ddb_error("GlobalTableNotFoundException", f"Global table with name '{name}' does not exist.")


# UNCONFIRMED wording (the rule is Application Auto Scaling's: an on-demand table has no capacity to scale).
AUTOSCALING_ON_DEMAND = "Auto scaling cannot be configured for a table in PAY_PER_REQUEST billing mode"


def autoscaling_bounds(low: int, high: int) -> ServiceError:
    # UNCONFIRMED wording.
    return validation_error(f"Minimum units {low} must not be greater than maximum units {high}")
