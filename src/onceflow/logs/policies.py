"""Data protection policies (one per log group: Put/Get/DeleteDataProtectionPolicy) and account
policies (Put/Describe/DeleteAccountPolicy: data protection, subscription filter, field index,
transformer and metric extraction policies), stored in logs_resources (resources.py).

A data protection document is checked as the model documents it: two statements, the first with
an Audit operation (its FindingsDestination), the second a Deidentify one with an empty MaskConfig,
both naming the same data identifiers, each an AWS managed identifier's ARN or a custom one the
document's Configuration defines. The policies are kept and answered, and DescribeLogGroups shows a
group's dataProtectionStatus; onceflow does not mask events (UNCONFIRMED how AWS masks each type).
An account-level subscription filter policy to a Lambda function delivers as a group's subscription
filter does (filters.py); the other account policy types are kept and answered only.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.logs import errors, resources
from onceflow.logs.filters import ACCOUNT_SUBSCRIPTION, LogFilters
from onceflow.logs.index_documents import check_criteria, index_fields
from onceflow.logs.json_docs import json_object
from onceflow.logs.resources import Row
from onceflow.logs.service import LogsService
from onceflow.registry import operation
from onceflow.store.db import Database

Params = dict[str, Any]
GROUP_POLICY = "data-protection-policy"  # a row per log group, named by the group
ACCOUNT_POLICY = "account-policy"  # a row per (type, name): "<policyType>/<policyName>"
DATA_PROTECTION = "DATA_PROTECTION_POLICY"
FIELD_INDEX = "FIELD_INDEX_POLICY"
IDENTIFIER_ARN = "arn:aws:dataprotection::aws:data-identifier/"
# AWS's managed data identifiers (Types of data that you can protect). UNCONFIRMED: as remembered from
# that page; the country-specific ones take a suffix (`-US`), and a bare name of those is refused, as AWS
# refused `PhoneNumber` (aws/aws-cdk#27388, quoting AWS's InvalidParameterException).
PLAIN_IDENTIFIERS = frozenset({
    "Address", "AwsSecretKey", "CreditCardExpiration", "CreditCardNumber", "CreditCardSecurityCode",
    "EmailAddress", "IpAddress", "LatLong", "Name", "OpenSshPrivateKey", "PgpPrivateKey", "PkcsPrivateKey",
    "PuttyPrivateKey", "VehicleIdentificationNumber",
})
COUNTRY_IDENTIFIERS = frozenset({
    "BankAccountNumber", "CepCode", "Cnpj", "Cpf", "DriversLicense", "ElectoralRollNumber",
    "HealthInsuranceCardNumber", "HealthInsuranceClaimNumber", "HealthInsuranceNumber",
    "IndividualTaxIdentificationNumber", "InseeCode", "MedicareBeneficiaryNumber", "NationalDrugCode",
    "NationalIdentificationNumber", "NationalInsuranceNumber", "NationalProviderId", "NhsNumber",
    "PassportNumber", "PermanentResidenceNumber", "PersonalHealthNumber", "PhoneNumber", "PostalCode",
    "RgNumber", "SocialInsuranceNumber", "Ssn", "TaxId", "ZipCode",
})
_COUNTRY = re.compile(r"([A-Za-z]+)-([A-Z]{2})")
_POLICY_NAME = re.compile(r"[A-Za-z0-9_-]+")
MAX_DOCUMENT = 30_720  # characters (model documentation)
# An account has either one policy of a type for all its log groups or up to this many, each with its
# selectionCriteria (model documentation; field index policies: 20 by name prefix and 20 by data source).
ACCOUNT_LIMITS = {DATA_PROTECTION: 1, "SUBSCRIPTION_FILTER_POLICY": 1, "FIELD_INDEX_POLICY": 40,
                  "TRANSFORMER_POLICY": 20, "METRIC_EXTRACTION_POLICY": 5}
SELECTABLE = {"SUBSCRIPTION_FILTER_POLICY", "FIELD_INDEX_POLICY", "TRANSFORMER_POLICY", "METRIC_EXTRACTION_POLICY"}


def _invalid(message: str) -> ServiceError:
    return errors.invalid_parameter(message)


def _statement_identifiers(statement: Any, custom: set[str]) -> list[str]:
    names = statement.get("DataIdentifier") if isinstance(statement, dict) else None
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise _invalid("Each statement of a data protection policy must have a DataIdentifier array")  # UNCONFIRMED
    for name in names:
        if name in custom:
            continue
        managed = name[len(IDENTIFIER_ARN):] if name.startswith(IDENTIFIER_ARN) else None
        country = _COUNTRY.fullmatch(managed or "")
        if managed in PLAIN_IDENTIFIERS or (country is not None and country.group(1) in COUNTRY_IDENTIFIERS):
            continue
        raise _invalid(f"{name} is not a valid Data Identifier")  # AWS's words (aws/aws-cdk#27388)
    return names


def check_data_protection(text: str) -> None:
    """Refuse a data protection policy document as the model's documentation describes it."""
    if len(text) > MAX_DOCUMENT:  # UNCONFIRMED wording
        raise _invalid(f"The policy document can be at most {MAX_DOCUMENT} characters long")
    doc = json_object(text)
    if doc is None:
        raise _invalid("The data protection policy document is not valid JSON")  # UNCONFIRMED wording
    config = doc.get("Configuration") or {}
    custom_defs = config.get("CustomDataIdentifier", []) if isinstance(config, dict) else None
    if not isinstance(custom_defs, list) or not all(
            isinstance(c, dict) and isinstance(c.get("Name"), str) and isinstance(c.get("Regex"), str)
            for c in custom_defs):
        raise _invalid("Each CustomDataIdentifier must have a Name and a Regex")  # UNCONFIRMED wording
    custom = {c["Name"] for c in custom_defs}
    statements = doc.get("Statement")
    if not isinstance(statements, list) or len(statements) != 2:
        # UNCONFIRMED wording: the documented shape is exactly two statements.
        raise _invalid("A data protection policy must have exactly two statements: Audit, then Deidentify")
    audit, deidentify = statements
    first = _statement_identifiers(audit, custom)
    second = _statement_identifiers(deidentify, custom)
    audit_op = (audit.get("Operation") or {}).get("Audit") if isinstance(audit.get("Operation"), dict) else None
    if not isinstance(audit_op, dict) or not isinstance(audit_op.get("FindingsDestination"), dict):
        raise _invalid("The first statement must have an Audit operation with a FindingsDestination")  # UNCONFIRMED
    op = deidentify.get("Operation")
    mask = (op.get("Deidentify") or {}).get("MaskConfig") if isinstance(op, dict) and isinstance(
        op.get("Deidentify"), dict) else None
    if mask != {}:
        raise _invalid("The second statement must have a Deidentify operation with an empty MaskConfig")  # UNCONFIRMED
    if sorted(first) != sorted(second):
        raise _invalid("The DataIdentifier arrays of the two statements must match")  # UNCONFIRMED wording


def _document_object(text: str) -> None:
    if json_object(text) is None:
        raise _invalid("The policy document must be a JSON object")  # UNCONFIRMED wording


def _account_shape(row: Row, account: str) -> Params:
    out: Params = {"policyName": row["policyName"], "policyDocument": row["policyDocument"],
                   "lastUpdatedTime": row["lastUpdatedTime"], "policyType": row["policyType"], "scope": "ALL"}
    if row.get("selectionCriteria"):
        out["selectionCriteria"] = row["selectionCriteria"]
    out["accountId"] = account
    return out


class PoliciesApi:
    def __init__(self, db: Database, logs: LogsService, clock: Callable[[], int], filters: LogFilters) -> None:
        self.db = db
        self.logs = logs
        self.clock = clock
        self.filters = filters  # an account-level subscription filter policy delivers through them

    def _group_name(self, ctx: RequestContext, conn: sqlite3.Connection, identifier: str) -> str:
        return str(self.logs.identified_group(conn, ctx.account, ctx.region, identifier)["name"])

    # ------------------------------------------------------------------------------ per log group
    @operation("PutDataProtectionPolicy")
    def put_data_protection_policy(self, ctx: RequestContext, p: Params) -> Params:
        check_data_protection(p["policyDocument"])
        now = self.clock()
        with self.db.transaction() as conn:
            name = self._group_name(ctx, conn, p["logGroupIdentifier"])
            resources.put(conn, ctx.account, ctx.region, GROUP_POLICY, name, now,
                          {"policyDocument": p["policyDocument"], "lastUpdatedTime": now})
        return {"logGroupIdentifier": p["logGroupIdentifier"], "policyDocument": p["policyDocument"],
                "lastUpdatedTime": now}

    @operation("GetDataProtectionPolicy")
    def get_data_protection_policy(self, ctx: RequestContext, p: Params) -> Params:
        def read(conn: sqlite3.Connection) -> Row | None:
            return resources.get(conn, ctx.account, ctx.region, GROUP_POLICY,
                                 self._group_name(ctx, conn, p["logGroupIdentifier"]))

        row = self.db.read(read)
        out: Params = {"logGroupIdentifier": p["logGroupIdentifier"]}
        if row is not None:  # UNCONFIRMED: a group without a policy answers only its identifier
            out.update({"policyDocument": row["policyDocument"], "lastUpdatedTime": row["lastUpdatedTime"]})
        return out

    @operation("DeleteDataProtectionPolicy")
    def delete_data_protection_policy(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            name = self._group_name(ctx, conn, p["logGroupIdentifier"])
            if not resources.delete(conn, ctx.account, ctx.region, GROUP_POLICY, name):
                # UNCONFIRMED wording.
                raise ServiceError("ResourceNotFoundException", "The specified data protection policy does not "
                                   "exist.", 400)

    # ------------------------------------------------------------------------------ account-wide
    @operation("PutAccountPolicy")
    def put_account_policy(self, ctx: RequestContext, p: Params) -> Params:
        name, kind, text = p["policyName"], p["policyType"], p["policyDocument"]
        criteria = p.get("selectionCriteria")
        if name.startswith("aws/") or not _POLICY_NAME.fullmatch(name):
            # AWS's words for a name with other characters (aws/aws-cdk#33557); the aws/ prefix is reserved
            # (model documentation), UNCONFIRMED how that is worded.
            raise _invalid("Policy Name can only include alphanumeric characters, hyphens (-) and underscores (_)")
        if p.get("scope", "ALL") != "ALL":
            raise _invalid("The only valid scope is ALL")  # unreachable past the model's enum
        if criteria and kind not in SELECTABLE:
            raise _invalid(f"selectionCriteria is not supported for {kind}")  # UNCONFIRMED wording
        if kind == DATA_PROTECTION:
            check_data_protection(text)
        elif kind == FIELD_INDEX:
            index_fields(text)
        else:
            _document_object(text)
        if kind == ACCOUNT_SUBSCRIPTION:
            self.filters.check_account_subscription(ctx.account, ctx.region, text, criteria)
        now = self.clock()
        data: Params = {"policyName": name, "policyType": kind, "policyDocument": text, "lastUpdatedTime": now}
        if criteria:
            data["selectionCriteria"] = criteria
        with self.db.transaction() as conn:
            same_type = [r for r in resources.every(conn, ctx.account, ctx.region, ACCOUNT_POLICY)
                         if r["policyType"] == kind and r["policyName"] != name]
            if kind == FIELD_INDEX:
                check_criteria(criteria, [r.get("selectionCriteria") for r in same_type])
            everything = not criteria or any(not r.get("selectionCriteria") for r in same_type)
            if len(same_type) >= (1 if everything else ACCOUNT_LIMITS[kind]):
                raise ServiceError("LimitExceededException", "Resource limit exceeded.", 400)  # UNCONFIRMED wording
            resources.put(conn, ctx.account, ctx.region, ACCOUNT_POLICY, f"{kind}/{name}", now, data)
        self.filters.forget_subscriptions()  # the next log write looks for subscriptions again
        return {"accountPolicy": _account_shape(data, ctx.account)}

    @operation("DescribeAccountPolicies")
    def describe_account_policies(self, ctx: RequestContext, p: Params) -> Params:
        accounts = p.get("accountIdentifiers")
        rows = [] if accounts and ctx.account not in accounts else [
            r for r in self.db.read(lambda conn: resources.every(conn, ctx.account, ctx.region, ACCOUNT_POLICY))
            if r["policyType"] == p["policyType"] and p.get("policyName") in (None, r["policyName"])]
        return resources.page(rows, p.get("nextToken"), None, ACCOUNT_POLICY,
                              lambda r: _account_shape(r, ctx.account), "accountPolicies")

    @operation("DeleteAccountPolicy")
    def delete_account_policy(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            if not resources.delete(conn, ctx.account, ctx.region, ACCOUNT_POLICY,
                                    f"{p['policyType']}/{p['policyName']}"):
                # UNCONFIRMED wording.
                raise ServiceError("ResourceNotFoundException", f"Policy with name [{p['policyName']}] does not "
                                   "exist", 400)
        self.filters.forget_subscriptions()
