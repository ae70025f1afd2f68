"""Account-wide reports: the credential report (a CSV of every user's credentials) and the account
summary (entity counts beside IAM's quotas)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.iam import account as account_settings
from onceflow.iam import profiles, providers, server_certs, user_credentials
from onceflow.iam.common import MANAGED_LIMIT, ROLE_INLINE_LIMIT, TRUST_LIMIT, now, partition
from onceflow.iam.last_used import KEY, LastUsed
from onceflow.iam.store import IamStore
from onceflow.registry import operation

REPORT = "credential-report"
REPORT_FRESH = timedelta(hours=4)  # IAM makes a new report only when the last one is older than this
COLUMNS = [
    "user", "arn", "user_creation_time", "password_enabled", "password_last_used", "password_last_changed",
    "password_next_rotation", "mfa_active",
    *[f"access_key_{n}_{c}" for n in (1, 2) for c in ("active", "last_rotated", "last_used_date",
                                                         "last_used_region", "last_used_service")],
    *[f"cert_{n}_{c}" for n in (1, 2) for c in ("active", "last_rotated")],
]
QUOTAS = {  # IAM's default quotas, as GetAccountSummary names them
    "UsersQuota": 5000, "GroupsQuota": 300, "RolesQuota": 1000, "PoliciesQuota": 1500,
    "ServerCertificatesQuota": 20, "InstanceProfilesQuota": 1000, "GroupsPerUserQuota": 10,
    "AttachedPoliciesPerUserQuota": 10, "AttachedPoliciesPerGroupQuota": 10, "AttachedPoliciesPerRoleQuota": 10,
    "AccessKeysPerUserQuota": 2, "SigningCertificatesPerUserQuota": 2, "UserPolicySizeQuota": 2048,
    "GroupPolicySizeQuota": 5120, "RolePolicySizeQuota": ROLE_INLINE_LIMIT, "PolicySizeQuota": MANAGED_LIMIT,
    "AssumeRolePolicySizeQuota": TRUST_LIMIT, "PolicyVersionsInUseQuota": 10000, "VersionsPerPolicyQuota": 5,
}


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _password_used(login: dict[str, Any] | None) -> str:
    # onceflow has no console to sign in to, so a password is never used: AWS writes no_information
    # for a password never used and N/A for a user without one (what tools reading AWS's reports
    # test for: password_enabled true with password_last_used no_information, "never logged in").
    return "no_information" if login is not None else "N/A"


class Reports:
    def __init__(self, store: IamStore, last_used: LastUsed | None = None) -> None:
        self.store = store
        self.last_used = last_used or LastUsed(store)

    def generate(self, account: str, partition: str = "aws") -> dict[str, str]:
        current = self.store.obj(account, REPORT, "")
        if current is not None and datetime.now(UTC) - datetime.fromisoformat(current["generated"]) < REPORT_FRESH:
            return {"State": "COMPLETE"}
        report = {"generated": now(), "content": self._csv(account, partition)}
        with self.store.writing() as conn:
            self.store.put_obj(conn, account, REPORT, "", report)
        # Made at once, but IAM's first answer for a new report is that it has started.
        return {"State": "STARTED", "Description": "No report exists. Starting a new report generation task"}

    def report(self, account: str) -> dict[str, Any]:
        current = self.store.obj(account, REPORT, "")
        if current is None:
            # AWS answers ReportNotPresent (410) with no Message at all (recorded: LocalStack's
            # test_iam_credential_report snapshot); the query wire leaves an empty one out.
            raise ServiceError("ReportNotPresent", "", 410)
        return current

    def _csv(self, account: str, partition: str) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        na = "N/A"
        root = ["<root_account>", f"arn:{partition}:iam::{account}:root", "not_supported", "not_supported", na,
                "not_supported", "not_supported", "false"] + ["false", na, na, na, na] * 2 + ["false", na] * 2
        writer.writerow(root)
        for user in self.store.users(account):
            key = user["name_key"]
            login = self.store.obj(account, user_credentials.LOGIN, key)
            mfa = [d for d in self.store.objs(account, user_credentials.MFA) if d.get("user") == key]
            certs = [c for c in self.store.objs(account, user_credentials.CERT) if c.get("user") == key]
            keys = self.store.access_keys(account, user["name"])
            # A password changed since the profile was made (ChangePassword, UpdateLoginProfile) counts from then.
            changed = (login.get("PasswordLastChanged") or login["CreateDate"]) if login else na
            row = [user["name"], user["arn"], user["created"], _flag(login is not None), _password_used(login),
                   changed, na, _flag(bool(mfa))]
            for n in range(2):
                k = keys[n] if n < len(keys) else None
                used = self.last_used.get(KEY, k["access_key_id"], account) if k else None
                row += [_flag(bool(k and k["status"] == "Active")), k["created"] if k else na]
                row += [used["date"].isoformat(), used["region"], used["service"]] if used else [na, na, na]
            for n in range(2):
                c = certs[n] if n < len(certs) else None
                row += [_flag(bool(c and c["Status"] == "Active")), c["UploadDate"] if c else na]
            writer.writerow(row)
        return out.getvalue()

    def summary(self, account: str) -> dict[str, int]:
        objs = self.store.objs
        users = self.store.users(account)
        policies = self.store.policies(account)
        mfa = objs(account, user_credentials.MFA)
        counts = {
            "Users": len(users), "Groups": len(self.store.groups(account)),
            "Roles": len(self.store.roles(account, "/", "", 1 << 30)), "Policies": len(policies),
            "ServerCertificates": len(objs(account, server_certs.KIND)),
            "InstanceProfiles": len(objs(account, profiles.KIND)),
            "Providers": len(objs(account, providers.OIDC)) + len(objs(account, providers.SAML)),
            "MFADevices": len(mfa), "MFADevicesInUse": sum(1 for d in mfa if d.get("user")),
            # Attachments of the account's own policies: each pins one version in use.
            "PolicyVersionsInUse": sum(self.store.attachment_count(account, p["arn"]) for p in policies),
            # The account root has no keys, certificates, MFA or console password of its own here
            # (AWS's recorded summary has all four members).
            "AccountMFAEnabled": 0, "AccountAccessKeysPresent": 0, "AccountSigningCertificatesPresent": 0,
            "AccountPasswordPresent": 0,
        }
        token = account_settings.token_version(self.store, account)  # SetSecurityTokenServicePreferences
        return {**counts, **QUOTAS, "GlobalEndpointTokenVersion": token}


class ReportsApi:
    def __init__(self, reports: Reports) -> None:
        self.reports = reports

    @operation("GenerateCredentialReport")
    def generate_credential_report(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, str]:
        return self.reports.generate(ctx.account, partition(ctx.region))

    @operation("GetCredentialReport")
    def get_credential_report(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        report = self.reports.report(ctx.account)
        return {"Content": report["content"].encode(), "ReportFormat": "text/csv",
                "GeneratedTime": datetime.fromisoformat(report["generated"])}

    @operation("GetAccountSummary")
    def get_account_summary(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return {"SummaryMap": self.reports.summary(ctx.account)}
