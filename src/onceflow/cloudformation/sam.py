"""The AWS::Serverless-2016-10-31 transform, done by AWS's own aws-sam-translator, so a SAM
template's functions, policy templates, events and globals become the resources they become on
AWS. Managed policy names (`Policies: [AmazonDynamoDBReadOnlyAccess]`) are looked up in onceflow's
IAM, as the translator looks them up in AWS's."""

from __future__ import annotations

from typing import Any

from onceflow import internal
from onceflow.cloudformation.template import Template, TemplateError, check, parse
from onceflow.context import RequestContext
from onceflow.stack import Stack

TRANSFORM = "AWS::Serverless-2016-10-31"


def translate(stack: Stack, ctx: RequestContext, text: str, given: dict[str, str]) -> Template:
    # Imported here: the translator takes a while to import and most stacks never need it.
    import boto3
    from samtranslator.model.exceptions import InvalidDocumentException
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    doc = parse(text)
    transforms = doc.get("Transform")
    if TRANSFORM not in ([transforms] if isinstance(transforms, str) else transforms or []):
        template = Template(doc)
        check(template)
        return template

    def policies() -> dict[str, str]:
        out: dict[str, str] = {}
        marker = None
        while True:
            page = internal.call(stack, ctx.principal, "iam", "ListPolicies",
                                 {"Scope": "AWS", **({"Marker": marker} if marker else {})}, region=ctx.region)
            out.update((p["PolicyName"], p["Arn"]) for p in page.get("Policies", []))
            marker = page.get("Marker")
            if not page.get("IsTruncated") or not marker:
                return out

    session = boto3.session.Session(region_name=ctx.region, aws_access_key_id="unused",
                                    aws_secret_access_key="unused")  # the translator only reads its region
    values: dict[str, Any] = {**given, "AWS::Region": ctx.region, "AWS::Partition": "aws",
                              "AWS::AccountId": ctx.account}
    try:
        out = Translator(None, Parser(), boto_session=session).translate(doc, parameter_values=values,
                                                                         get_managed_policy_map=policies)
    except InvalidDocumentException as exc:
        causes = " ".join(c.message for c in exc.causes)
        raise TemplateError(f"Transform {TRANSFORM} failed with: {exc.message} {causes}") from None
    template = Template(out)
    check(template)
    return template
