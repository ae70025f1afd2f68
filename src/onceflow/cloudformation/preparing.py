"""A request's template as a stack operation will make it: read (TemplateBody or a TemplateURL in
onceflow's S3), transformed (Fn::ForEach, then SAM), its parameters resolved and its conditions
checked, and the capabilities it needs (CAPABILITY_IAM / _NAMED_IAM / _AUTO_EXPAND) given."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlparse

from onceflow.cloudformation import errors
from onceflow.cloudformation.language import LANGUAGE, expand
from onceflow.cloudformation.providers import PROVIDERS
from onceflow.cloudformation.sam import translate
from onceflow.cloudformation.template import Env, Template, TemplateError, conditions, parse, resolve_parameters
from onceflow.cloudformation.template import load as load_template
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.stack import Stack

Doc = dict[str, Any]
SAM = "AWS::Serverless-2016-10-31"


def template_text(stack: Stack, ctx: RequestContext, p: dict[str, Any]) -> str:
    if p.get("TemplateBody") is not None:
        if p.get("TemplateURL") is not None:
            raise errors.validation("Specify exactly one of TemplateBody or TemplateUrl.")
        return str(p["TemplateBody"])
    url = p.get("TemplateURL")
    if url is None:
        raise errors.validation("Either Template URL or Template Body must be specified.")
    return _from_s3(stack, ctx, str(url))


def _from_s3(stack: Stack, ctx: RequestContext, url: str) -> str:
    parts = urlparse(url)
    host, path = parts.netloc, parts.path.lstrip("/")
    if ".s3" in host and not host.startswith("s3"):  # virtual-hosted style
        bucket, key = host.split(".s3", 1)[0], path
    else:
        bucket, _, key = path.partition("/")
    try:
        _, pieces = stack.ports.objects().get_object(ctx.account, bucket, key)
        return b"".join(pieces).decode("utf-8")
    except (ServiceError, UnicodeDecodeError):
        raise errors.validation(f"TemplateURL must be a supported URL.: {url}") from None


def load(stack: Stack, ctx: RequestContext, text: str, given: dict[str, str]) -> Template:
    """The template as it will be made: transforms applied, checked."""
    try:
        if LANGUAGE in text:  # Fn::ForEach first: AWS runs a template's transforms in order
            text = json.dumps(expand(parse(text), given), default=str)
        # A SAM template becomes plain CloudFormation by AWS's own translator.
        return load_template(text) if SAM not in text else translate(stack, ctx, text, given)
    except TemplateError as exc:
        raise errors.validation(exc.message) from None


def capabilities_needed(template: Template) -> tuple[str | None, list[str]]:
    """The IAM capability the template's resources need, and the types that need it."""
    needed, types = None, []
    for body in template.resources.values():
        provider = PROVIDERS.get(str(body.get("Type")))
        if provider is not None and provider.iam:
            types.append(str(body["Type"]))
            if provider.named_iam and (body.get("Properties") or {}).get(provider.named_iam):
                needed = "CAPABILITY_NAMED_IAM"
            elif needed is None:
                needed = "CAPABILITY_IAM"
    return needed, sorted(set(types))


def check_capabilities(template: Template, given: list[str]) -> None:
    needed, _ = capabilities_needed(template)
    if needed == "CAPABILITY_NAMED_IAM" and "CAPABILITY_NAMED_IAM" not in given:
        raise errors.insufficient_capabilities(needed)
    if needed == "CAPABILITY_IAM" and not {"CAPABILITY_IAM", "CAPABILITY_NAMED_IAM"} & set(given):
        raise errors.insufficient_capabilities(needed)


def prepare(stack: Stack, ctx: RequestContext, p: dict[str, Any], doc: Doc,
            previous: dict[str, Any] | None = None) -> tuple[Template, dict[str, Any]]:
    """Read, transform and check the request's template and parameters into `doc` (its template,
    processed template and parameters); bad input raises and leaves the stack as it was."""
    given = {}
    for x in p.get("Parameters") or []:
        key = x["ParameterKey"]
        if x.get("UsePreviousValue"):
            if previous is None or key not in previous:
                raise errors.validation(f"Invalid input for parameter key {key}. Cannot specify "
                                        "usePreviousValue as true for a parameter key not in the previous "
                                        "template")
            value = previous[key]
            given[key] = ",".join(value) if isinstance(value, list) else value
        else:
            given[key] = x.get("ParameterValue", "")
    text = template_text(stack, ctx, p)
    template = load(stack, ctx, text, given)
    try:
        values = resolve_parameters(template, given)
        # Conditions depend on parameters only: a broken one is refused before anything is made.
        conditions(template, Env(ctx.account, ctx.region, str(p.get("StackName", "")), "", values))
    except TemplateError as exc:
        raise errors.validation(exc.message) from None
    given_capabilities = list(p.get("Capabilities") or [])
    check_capabilities(template, given_capabilities)
    if given_capabilities:  # what the operation was allowed: a nested stack may do the same
        doc["Capabilities"] = given_capabilities
    else:
        doc.pop("Capabilities", None)
    doc["_template"], doc["_processed"] = text, template.doc
    doc["_parameters"] = values
    doc["Parameters"] = [{"ParameterKey": k, "ParameterValue": "****" if template.parameters[k].get("NoEcho")
                          in (True, "true") else (",".join(v) if isinstance(v, list) else v)}
                         for k, v in values.items()]
    if template.description is not None:
        doc["Description"] = template.description
    return template, values
