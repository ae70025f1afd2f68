"""Mobile push: platform applications and their endpoints, and the account's SMS settings.

onceflow reaches no push service (APNS, FCM...), so credentials are kept as given and a
publish to an enabled endpoint is accepted and goes nowhere; what AWS checks locally (which
platform, an endpoint's token being unique in its application, a disabled endpoint refusing
publishes) is checked here.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.sns.errors import invalid, not_found
from onceflow.sns.paging import arn_after, token_after
from onceflow.store.db import Database

PLATFORMS = {"ADM", "APNS", "APNS_SANDBOX", "GCM", "BAIDU", "MPNS", "WNS"}
PAGE = 100
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,256}$")


def app_not_found() -> ServiceError:
    return not_found("PlatformApplication does not exist")


def endpoint_not_found() -> ServiceError:
    return not_found("Endpoint does not exist")


class Platforms:
    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------------ applications
    def create_app(self, account: str, region: str, name: str, platform: str, attributes: dict[str, str]) -> str:
        if platform not in PLATFORMS:
            raise invalid(f"Platform Reason: {platform} is not supported")
        if not _NAME.match(name):
            raise invalid("Name Reason: must be at most 256 characters long, alphanumeric, '_', '-' or '.'")
        arn = f"arn:{partition(region)}:sns:{region}:{account}:app/{platform}/{name}"
        with self.db.transaction() as conn:
            row = conn.execute("SELECT attributes FROM sns_platform_apps WHERE arn=?", (arn,)).fetchone()
            merged = {**(json.loads(row[0]) if row else {}), **attributes}
            conn.execute("INSERT OR REPLACE INTO sns_platform_apps (arn, account, region, platform, attributes) "
                         "VALUES (?,?,?,?,?)", (arn, account, region, platform, json.dumps(merged)))
        return arn

    def app_attributes(self, arn: str) -> dict[str, str]:
        row = self.db.query_one("SELECT attributes FROM sns_platform_apps WHERE arn=?", (arn,))
        if row is None:
            raise app_not_found()
        return dict(json.loads(row[0]))

    def set_app_attributes(self, arn: str, attributes: dict[str, str]) -> None:
        with self.db.transaction() as conn:
            row = conn.execute("SELECT attributes FROM sns_platform_apps WHERE arn=?", (arn,)).fetchone()
            if row is None:
                raise app_not_found()
            conn.execute("UPDATE sns_platform_apps SET attributes=? WHERE arn=?",
                         (json.dumps({**json.loads(row[0]), **attributes}), arn))

    def delete_app(self, arn: str) -> None:
        """Its endpoints go with it; deleting one that is gone is no error, as on AWS."""
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sns_endpoints WHERE app_arn=?", (arn,))
            conn.execute("DELETE FROM sns_platform_apps WHERE arn=?", (arn,))

    def list_apps(self, account: str, region: str, token: str | None) -> dict[str, Any]:
        rows = self.db.query("SELECT arn, attributes FROM sns_platform_apps WHERE account=? AND region=? AND arn > ? "
                             "ORDER BY arn LIMIT ?", (account, region, arn_after(token, "apps"), PAGE + 1))
        out: dict[str, Any] = {"PlatformApplications": [
            {"PlatformApplicationArn": r[0], "Attributes": json.loads(r[1])} for r in rows[:PAGE]]}
        if len(rows) > PAGE:
            out["NextToken"] = token_after(rows[PAGE - 1][0], "apps")
        return out

    # ------------------------------------------------------------------ endpoints
    def create_endpoint(self, app_arn: str, token: str, custom_data: str | None,
                        attributes: dict[str, str]) -> str:
        """Idempotent on the token: the same token and attributes answer the same endpoint."""
        wanted = {"Enabled": "true", **attributes, "Token": token}
        if custom_data is not None:
            wanted["CustomUserData"] = custom_data
        with self.db.transaction() as conn:
            if conn.execute("SELECT 1 FROM sns_platform_apps WHERE arn=?", (app_arn,)).fetchone() is None:
                raise app_not_found()
            row = conn.execute("SELECT arn, attributes FROM sns_endpoints WHERE app_arn=? AND token=?",
                               (app_arn, token)).fetchone()
            if row is not None:
                if json.loads(row[1]) != wanted:
                    raise invalid(f"Token Reason: Endpoint {row[0]} already exists with the same Token, but "
                                  "different attributes.")
                return str(row[0])
            arn = app_arn.replace(":app/", ":endpoint/", 1) + f"/{uuid.uuid4()}"
            conn.execute("INSERT INTO sns_endpoints (arn, app_arn, token, attributes) VALUES (?,?,?,?)",
                         (arn, app_arn, token, json.dumps(wanted)))
        return arn

    def endpoint_attributes(self, arn: str) -> dict[str, str]:
        row = self.db.query_one("SELECT attributes FROM sns_endpoints WHERE arn=?", (arn,))
        if row is None:
            raise endpoint_not_found()
        return dict(json.loads(row[0]))

    def endpoint_exists(self, arn: str) -> bool:
        return self.db.query_one("SELECT 1 FROM sns_endpoints WHERE arn=?", (arn,)) is not None

    def set_endpoint_attributes(self, arn: str, attributes: dict[str, str]) -> None:
        with self.db.transaction() as conn:
            row = conn.execute("SELECT attributes FROM sns_endpoints WHERE arn=?", (arn,)).fetchone()
            if row is None:
                raise endpoint_not_found()
            merged = {**json.loads(row[0]), **attributes}
            conn.execute("UPDATE sns_endpoints SET attributes=?, token=? WHERE arn=?",
                         (json.dumps(merged), merged.get("Token", ""), arn))

    def delete_endpoint(self, arn: str) -> None:
        with self.db.transaction() as conn:  # idempotent, as on AWS
            conn.execute("DELETE FROM sns_endpoints WHERE arn=?", (arn,))

    def list_endpoints(self, app_arn: str, token: str | None) -> dict[str, Any]:
        if self.db.query_one("SELECT 1 FROM sns_platform_apps WHERE arn=?", (app_arn,)) is None:
            raise app_not_found()
        rows = self.db.query("SELECT arn, attributes FROM sns_endpoints WHERE app_arn=? AND arn > ? ORDER BY arn "
                             "LIMIT ?", (app_arn, arn_after(token, f"endpoints:{app_arn}"), PAGE + 1))
        out: dict[str, Any] = {"Endpoints": [{"EndpointArn": r[0], "Attributes": json.loads(r[1])}
                                             for r in rows[:PAGE]]}
        if len(rows) > PAGE:
            out["NextToken"] = token_after(rows[PAGE - 1][0], f"endpoints:{app_arn}")
        return out

    def check_publishable(self, arn: str) -> None:
        """A publish to an endpoint: it must exist and be enabled."""
        if self.endpoint_attributes(arn).get("Enabled", "true").lower() != "true":
            raise ServiceError("EndpointDisabled", "Endpoint is disabled")

    # ------------------------------------------------------------------ SMS settings
    def sms_attributes(self, account: str, region: str, names: list[str]) -> dict[str, str]:
        row = self.db.query_one("SELECT attributes FROM sns_sms_settings WHERE account=? AND region=?",
                                (account, region))
        values: dict[str, str] = json.loads(row[0]) if row else {}
        return {k: v for k, v in values.items() if not names or k in names}

    def set_sms_attributes(self, account: str, region: str, attributes: dict[str, str]) -> None:
        with self.db.transaction() as conn:
            row = conn.execute("SELECT attributes FROM sns_sms_settings WHERE account=? AND region=?",
                               (account, region)).fetchone()
            merged = {**(json.loads(row[0]) if row else {}), **attributes}
            conn.execute("INSERT OR REPLACE INTO sns_sms_settings (account, region, attributes) VALUES (?,?,?)",
                         (account, region, json.dumps(merged)))
