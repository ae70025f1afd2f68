"""Service last accessed reports (GenerateServiceLastAccessedDetails, GetServiceLastAccessedDetails,
GetServiceLastAccessedDetailsWithEntities): for a user, group, role or managed policy, each service
its permissions policies allow, and when the users or roles that hold them last tried to reach it.

AWS's reference: every attempt counts, denied ones too (the authorizer marks a user's or a role's use
of a service as it authenticates the call, last_used.py); only permissions policies decide which
services are listed (not boundaries, resource or trust policies); a group's report is its members',
a policy's the users and roles it is attached to (and the members of the groups it is attached to);
the list is sorted by namespace; a job is read by the principal that made it. The report is made
whole when it is asked for, so its job is COMPLETED at once (AWS's may first be IN_PROGRESS).

Which services: those onceflow serves that the policies reach, and any other namespace a policy
names outright (UNCONFIRMED: its ServiceName is then the namespace; AWS lists every AWS service a
wildcard reaches, with its own names). Action-level tracking is not kept: an ACTION_LEVEL job
answers the service level only (UNCONFIRMED).
"""

from __future__ import annotations

import uuid
from typing import Any

from onceflow.context import Principal, RequestContext
from onceflow.iam import errors
from onceflow.iam.api import Out, _date
from onceflow.iam.common import entity_of, now, page
from onceflow.iam.last_used import SERVICE, LastUsed, service_key
from onceflow.iam.policy import Policy, stored
from onceflow.iam.policy.services import grants
from onceflow.iam.service import IamService
from onceflow.iam.store import Row
from onceflow.registry import operation

KIND = "access-report"
# The served services' IAM namespaces and the names the reports give them (UNCONFIRMED: the names
# are the services' own, as the IAM console lists them).
CATALOG = {
    "cloudformation": "AWS CloudFormation", "dynamodb": "Amazon DynamoDB", "events": "Amazon EventBridge",
    "iam": "AWS Identity and Access Management", "lambda": "AWS Lambda", "logs": "Amazon CloudWatch Logs",
    "s3": "Amazon S3", "scheduler": "Amazon EventBridge Scheduler", "sns": "Amazon SNS", "sqs": "Amazon SQS",
    "states": "AWS Step Functions", "sts": "AWS Security Token Service",
}


def named_namespaces(policies: list[Policy]) -> set[str]:
    """Namespaces an Allow statement names outright ("ec2:Describe*" names ec2)."""
    out = set()
    for policy in policies:
        for statement in policy.statements:
            if statement.effect != "Allow":
                continue
            for pattern in statement.actions or ():
                prefix, colon, _ = pattern.partition(":")
                if colon and prefix and "*" not in prefix and "?" not in prefix:
                    out.add(prefix.lower())
    return out


class AccessAdvisor:
    def __init__(self, service: IamService, last_used: LastUsed) -> None:
        self.service = service
        self.store = service.store
        self.last_used = last_used

    def generate(self, account: str, arn: str, granularity: str, caller: str) -> str:
        policies, entities = self._subject(account, arn)
        namespaces = sorted({ns for ns in CATALOG if any(grants(p, ns) for p in policies)}
                            | {ns for ns in named_namespaces(policies) if any(grants(p, ns) for p in policies)})
        job_id = str(uuid.uuid4())
        report = {"JobId": job_id, "caller": caller, "JobType": granularity, "JobCreationDate": now(),
                  "services": [self._service(account, ns, entities) for ns in namespaces]}
        report["JobCompletionDate"] = now()
        with self.store.writing() as conn:
            self.store.put_obj(conn, account, KIND, job_id, report)
        return job_id

    def report(self, account: str, job_id: str, caller: str) -> Row:
        found = self.store.obj(account, KIND, job_id)
        if found is None or found["caller"] != caller:  # a job is its maker's
            raise errors.access_report_not_found(job_id)
        return found

    # ------------------------------------------------------------------ what a report covers
    def _subject(self, account: str, arn: str) -> tuple[list[Policy], list[Row]]:
        """(permissions policies, entities whose use counts) of the report's user, group, role or policy."""
        if ":policy/" in arn:
            self.service.policy(account, arn)  # NoSuchEntity for a policy that is not there
            doc = self.service.default_document(account, arn)
            holders = self.store.entities_for_policy(account, arn)
            entities = [e for kind, key in holders for e in self._holders(account, kind, key)]
            return ([stored(doc)] if doc else []), _unique(entities)
        kind, name = entity_of(arn, ("user", "group", "role"), account)
        if kind == "group":
            group = self.store.group(account, name)
            if group is None or group["arn"] != arn:
                raise errors.group_not_found(name)
            docs = self.service.group_documents(account, name)
            return [stored(d) for d in docs], [{**u, "type": "USER"} for u in self.store.members(account, name)]
        entity = self.store.user(account, name) if kind == "user" else self.store.role(account, name)
        if entity is None or entity["arn"] != arn:
            raise errors.user_not_found(name) if kind == "user" else errors.role_not_found(name)
        principal = (Principal(account, "user", arn, entity["name"]) if kind == "user"
                     else Principal(account, "assumed-role", role_arn=arn))
        return self.service.policies_for(principal), [{**entity, "type": kind.upper()}]

    def _holders(self, account: str, kind: str, key: str) -> list[Row]:
        if kind == "group":
            return [{**u, "type": "USER"} for u in self.store.members(account, key)]
        entity = self.store.user(account, key) if kind == "user" else self.store.role(account, key)
        return [] if entity is None else [{**entity, "type": kind.upper()}]

    def _service(self, account: str, namespace: str, entities: list[Row]) -> Row:
        uses = []
        for entity in entities:
            used = self.last_used.since(SERVICE, service_key(entity["arn"], namespace), account, entity["created"])
            if used is not None:
                uses.append((used, entity))
        out: Row = {"ServiceName": CATALOG.get(namespace, namespace), "ServiceNamespace": namespace,
                    "TotalAuthenticatedEntities": len(uses), "entities": [_entity(e, None) for e in entities]}
        if uses:
            used, entity = max(uses, key=lambda u: u[0]["date"])
            out.update(LastAuthenticated=used["date"].isoformat(), LastAuthenticatedEntity=entity["arn"],
                       LastAuthenticatedRegion=used["region"])
            latest = {e["arn"]: u["date"].isoformat() for u, e in uses}
            out["entities"] = [_entity(e, latest.get(e["arn"])) for e in entities]
        return out


def _unique(entities: list[Row]) -> list[Row]:
    return list({e["arn"]: e for e in entities}.values())


def _entity(entity: Row, last: str | None) -> Row:
    info = {"Arn": entity["arn"], "Name": entity["name"], "Type": entity["type"], "Path": entity["path"],
            "Id": entity.get("user_id") or entity.get("role_id")}
    return {"EntityInfo": info, **({"LastAuthenticated": last} if last else {})}


def _job(report: Row) -> Out:
    return {"JobStatus": "COMPLETED", "JobCreationDate": _date(report["JobCreationDate"]),
            "JobCompletionDate": _date(report["JobCompletionDate"])}


class AccessAdvisorApi:
    def __init__(self, advisor: AccessAdvisor) -> None:
        self.advisor = advisor

    @operation("GenerateServiceLastAccessedDetails")
    def generate_service_last_accessed_details(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        granularity = params.get("Granularity", "SERVICE_LEVEL")
        return {"JobId": self.advisor.generate(ctx.account, params["Arn"], granularity, _caller(ctx))}

    @operation("GetServiceLastAccessedDetails")
    def get_service_last_accessed_details(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        report = self.advisor.report(ctx.account, params["JobId"], _caller(ctx))
        items, marker = page(report["services"], params.get("Marker"), params.get("MaxItems"),
                             lambda s: s["ServiceNamespace"])
        services = [_service_out(s) for s in items]
        out = {**_job(report), "JobType": report["JobType"], "ServicesLastAccessed": services,
               "IsTruncated": marker is not None}
        return {**out, "Marker": marker} if marker else out

    @operation("GetServiceLastAccessedDetailsWithEntities")
    def get_service_last_accessed_details_with_entities(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        report = self.advisor.report(ctx.account, params["JobId"], _caller(ctx))
        found = next((s for s in report["services"] if s["ServiceNamespace"] == params["ServiceNamespace"]), None)
        # The most recent access first (AWS's default order), then those that never reached it.
        entities = sorted(found["entities"] if found else [], key=lambda e: e.get("LastAuthenticated", ""),
                          reverse=True)
        items, marker = page(entities, params.get("Marker"), params.get("MaxItems"), lambda e: e["EntityInfo"]["Arn"])
        details = [{**e, **({"LastAuthenticated": _date(e["LastAuthenticated"])} if "LastAuthenticated" in e else {})}
                   for e in items]
        out = {**_job(report), "EntityDetailsList": details, "IsTruncated": marker is not None}
        return {**out, "Marker": marker} if marker else out


def _service_out(service: Row) -> Out:
    out = {k: v for k, v in service.items() if k != "entities"}
    if "LastAuthenticated" in out:
        out["LastAuthenticated"] = _date(out["LastAuthenticated"])
    return out


def _caller(ctx: RequestContext) -> str:
    p = ctx.principal
    return p.role_arn or p.arn or f"root:{p.account}"
