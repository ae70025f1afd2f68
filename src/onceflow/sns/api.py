"""SNS operations (query protocol): parsed request members in, output members out."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.sns import sms
from onceflow.sns.data_protection import check_policy
from onceflow.sns.errors import invalid
from onceflow.sns.service import SnsService

Params = dict[str, Any]


class SnsApi:
    def __init__(self, service: SnsService) -> None:
        self.service = service
        self.topics = service.topics
        self.platforms = service.platforms

    # ------------------------------------------------------------------ topics
    @operation("CreateTopic")
    def create_topic(self, ctx: RequestContext, p: Params) -> Params:
        policy = p.get("DataProtectionPolicy")
        if policy is not None:  # checked first: a bad one creates no topic
            check_policy(policy)
        arn = self.topics.create(ctx.account, ctx.region, p["Name"], dict(p.get("Attributes") or {}),
                                 list(p.get("Tags") or []))
        if policy is not None:
            self.service.data_protection.put(arn, policy)
        return {"TopicArn": arn}

    @operation("DeleteTopic")
    def delete_topic(self, ctx: RequestContext, p: Params) -> None:
        self.topics.delete(p["TopicArn"])  # AWS: deleting a topic that does not exist is no error

    @operation("ListTopics")
    def list_topics(self, ctx: RequestContext, p: Params) -> Params:
        return self.topics.list(ctx.account, ctx.region, p.get("NextToken"))

    @operation("GetTopicAttributes")
    def get_topic_attributes(self, ctx: RequestContext, p: Params) -> Params:
        _in_region(ctx, p["TopicArn"])
        return {"Attributes": self.topics.attributes(p["TopicArn"])}

    @operation("SetTopicAttributes")
    def set_topic_attributes(self, ctx: RequestContext, p: Params) -> None:
        _in_region(ctx, p["TopicArn"])
        self.topics.set_attribute(p["TopicArn"], p["AttributeName"], p.get("AttributeValue") or "")

    @operation("AddPermission")
    def add_permission(self, ctx: RequestContext, p: Params) -> None:
        _in_region(ctx, p["TopicArn"])
        self.topics.add_permission(p["TopicArn"], p["Label"], list(p["AWSAccountId"]), list(p["ActionName"]))

    @operation("RemovePermission")
    def remove_permission(self, ctx: RequestContext, p: Params) -> None:
        _in_region(ctx, p["TopicArn"])
        self.topics.remove_permission(p["TopicArn"], p["Label"])

    # ------------------------------------------------------------------ data protection
    @operation("GetDataProtectionPolicy")
    def get_data_protection_policy(self, ctx: RequestContext, p: Params) -> Params:
        _in_region(ctx, p["ResourceArn"], "ResourceArn")
        policy = self.service.data_protection.get(p["ResourceArn"])
        return {} if policy is None else {"DataProtectionPolicy": policy}  # UNCONFIRMED: no member without one

    @operation("PutDataProtectionPolicy")
    def put_data_protection_policy(self, ctx: RequestContext, p: Params) -> None:
        _in_region(ctx, p["ResourceArn"], "ResourceArn")
        self.service.data_protection.put(p["ResourceArn"], p["DataProtectionPolicy"])

    # ------------------------------------------------------------------ tags
    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, p: Params) -> None:
        tags = self.topics.tags(p["ResourceArn"])
        tags.update({t["Key"]: t["Value"] for t in p["Tags"]})
        self.topics.set_tags(p["ResourceArn"], tags)

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, p: Params) -> None:
        tags = self.topics.tags(p["ResourceArn"])
        for key in p["TagKeys"]:
            tags.pop(key, None)
        self.topics.set_tags(p["ResourceArn"], tags)

    @operation("ListTagsForResource")
    def list_tags_for_resource(self, ctx: RequestContext, p: Params) -> Params:
        tags = self.topics.tags(p["ResourceArn"])
        return {"Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}

    # ------------------------------------------------------------------ subscriptions
    @operation("Subscribe")
    def subscribe(self, ctx: RequestContext, p: Params) -> Params:
        _in_region(ctx, p["TopicArn"])
        self.service.check_cross_account(ctx, p["TopicArn"], "Subscribe")
        sub = self.service.subscribe(ctx.account, p["TopicArn"], p["Protocol"], p.get("Endpoint"),
                                     dict(p.get("Attributes") or {}))
        if not sub.confirmed and not p.get("ReturnSubscriptionArn"):
            return {"SubscriptionArn": "pending confirmation"}
        return {"SubscriptionArn": sub.arn}

    @operation("ConfirmSubscription")
    def confirm_subscription(self, ctx: RequestContext, p: Params) -> Params:
        # No region check (AWS has one): an unsigned visit of SubscribeURL carries no region of its own.
        return {"SubscriptionArn": self.topics.confirm(p["TopicArn"], p["Token"])}

    @operation("Unsubscribe")
    def unsubscribe(self, ctx: RequestContext, p: Params) -> None:
        self.topics.unsubscribe(p["SubscriptionArn"])

    @operation("ListSubscriptions")
    def list_subscriptions(self, ctx: RequestContext, p: Params) -> Params:
        return self.topics.subscriptions(None, ctx.account, p.get("NextToken"))

    @operation("ListSubscriptionsByTopic")
    def list_subscriptions_by_topic(self, ctx: RequestContext, p: Params) -> Params:
        _in_region(ctx, p["TopicArn"])
        return self.topics.subscriptions(p["TopicArn"], ctx.account, p.get("NextToken"))

    @operation("GetSubscriptionAttributes")
    def get_subscription_attributes(self, ctx: RequestContext, p: Params) -> Params:
        return {"Attributes": self.topics.subscription_attributes(p["SubscriptionArn"])}

    @operation("SetSubscriptionAttributes")
    def set_subscription_attributes(self, ctx: RequestContext, p: Params) -> None:
        self.topics.set_subscription_attribute(p["SubscriptionArn"], p["AttributeName"], p.get("AttributeValue") or "")

    # ------------------------------------------------------------------ publishing
    @operation("Publish")
    def publish(self, ctx: RequestContext, p: Params) -> Params:
        if p.get("PhoneNumber") and not (p.get("TopicArn") or p.get("TargetArn")):
            return self.service.publish_sms(p)  # SMS: accepted, not sent
        arn = p.get("TopicArn") or p.get("TargetArn")
        if not arn:
            raise invalid("TopicArn or TargetArn Reason: no value for required parameter")
        _in_region(ctx, arn, "TopicArn" if p.get("TopicArn") else "TargetArn")
        self.service.check_cross_account(ctx, arn, "Publish")
        return self.service.publish(arn, p)

    @operation("PublishBatch")
    def publish_batch(self, ctx: RequestContext, p: Params) -> Params:
        _in_region(ctx, p["TopicArn"])
        self.service.check_cross_account(ctx, p["TopicArn"], "Publish")
        return self.service.publish_batch(p["TopicArn"], list(p["PublishBatchRequestEntries"]))

    # ------------------------------------------------------------------ mobile push and SMS
    @operation("CreatePlatformApplication")
    def create_platform_application(self, ctx: RequestContext, p: Params) -> Params:
        return {"PlatformApplicationArn": self.platforms.create_app(
            ctx.account, ctx.region, p["Name"], p["Platform"], dict(p.get("Attributes") or {}))}

    @operation("GetPlatformApplicationAttributes")
    def get_platform_application_attributes(self, ctx: RequestContext, p: Params) -> Params:
        return {"Attributes": self.platforms.app_attributes(p["PlatformApplicationArn"])}

    @operation("SetPlatformApplicationAttributes")
    def set_platform_application_attributes(self, ctx: RequestContext, p: Params) -> None:
        self.platforms.set_app_attributes(p["PlatformApplicationArn"], dict(p.get("Attributes") or {}))

    @operation("DeletePlatformApplication")
    def delete_platform_application(self, ctx: RequestContext, p: Params) -> None:
        self.platforms.delete_app(p["PlatformApplicationArn"])

    @operation("ListPlatformApplications")
    def list_platform_applications(self, ctx: RequestContext, p: Params) -> Params:
        return self.platforms.list_apps(ctx.account, ctx.region, p.get("NextToken"))

    @operation("CreatePlatformEndpoint")
    def create_platform_endpoint(self, ctx: RequestContext, p: Params) -> Params:
        return {"EndpointArn": self.platforms.create_endpoint(
            p["PlatformApplicationArn"], p["Token"], p.get("CustomUserData"), dict(p.get("Attributes") or {}))}

    @operation("GetEndpointAttributes")
    def get_endpoint_attributes(self, ctx: RequestContext, p: Params) -> Params:
        return {"Attributes": self.platforms.endpoint_attributes(p["EndpointArn"])}

    @operation("SetEndpointAttributes")
    def set_endpoint_attributes(self, ctx: RequestContext, p: Params) -> None:
        self.platforms.set_endpoint_attributes(p["EndpointArn"], dict(p.get("Attributes") or {}))

    @operation("DeleteEndpoint")
    def delete_endpoint(self, ctx: RequestContext, p: Params) -> None:
        self.platforms.delete_endpoint(p["EndpointArn"])

    @operation("ListEndpointsByPlatformApplication")
    def list_endpoints_by_platform_application(self, ctx: RequestContext, p: Params) -> Params:
        return self.platforms.list_endpoints(p["PlatformApplicationArn"], p.get("NextToken"))

    @operation("SetSMSAttributes")
    def set_sms_attributes(self, ctx: RequestContext, p: Params) -> None:
        self.platforms.set_sms_attributes(ctx.account, ctx.region, dict(p.get("attributes") or {}))

    @operation("GetSMSAttributes")
    def get_sms_attributes(self, ctx: RequestContext, p: Params) -> Params:
        return {"attributes": self.platforms.sms_attributes(ctx.account, ctx.region, list(p.get("attributes") or []))}

    # ------------------------------------------------------------------ the SMS sandbox (sandbox.py)
    @operation("GetSMSSandboxAccountStatus")
    def get_sms_sandbox_account_status(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.sandbox.status()

    @operation("CreateSMSSandboxPhoneNumber")
    def create_sms_sandbox_phone_number(self, ctx: RequestContext, p: Params) -> Params:
        self.service.sandbox.create(ctx.account, ctx.region, p["PhoneNumber"], p.get("LanguageCode") or "en-US")
        return {}

    @operation("VerifySMSSandboxPhoneNumber")
    def verify_sms_sandbox_phone_number(self, ctx: RequestContext, p: Params) -> Params:
        self.service.sandbox.verify(ctx.account, ctx.region, p["PhoneNumber"], p["OneTimePassword"])
        return {}

    @operation("DeleteSMSSandboxPhoneNumber")
    def delete_sms_sandbox_phone_number(self, ctx: RequestContext, p: Params) -> Params:
        self.service.sandbox.delete(ctx.account, ctx.region, p["PhoneNumber"])
        return {}

    @operation("ListSMSSandboxPhoneNumbers")
    def list_sms_sandbox_phone_numbers(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.sandbox.list(ctx.account, ctx.region, p.get("NextToken"), p.get("MaxResults"))

    @operation("ListOriginationNumbers")
    def list_origination_numbers(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.sandbox.origination_numbers(p.get("NextToken"))

    # Opt-outs come from recipients replying STOP to an SMS; onceflow sends none, so no number is
    # ever opted out: the calls answer that (and check the number as AWS does).
    @operation("CheckIfPhoneNumberIsOptedOut")
    def check_if_phone_number_is_opted_out(self, ctx: RequestContext, p: Params) -> Params:
        sms.check_listed_number(p["phoneNumber"])
        return {"isOptedOut": False}

    @operation("ListPhoneNumbersOptedOut")
    def list_phone_numbers_opted_out(self, ctx: RequestContext, p: Params) -> Params:
        return {"phoneNumbers": []}

    @operation("OptInPhoneNumber")
    def opt_in_phone_number(self, ctx: RequestContext, p: Params) -> Params:
        sms.check_listed_number(p["phoneNumber"])
        return {}


def _in_region(ctx: RequestContext, arn: str, member: str = "TopicArn") -> None:
    """SNS serves a region's topics only ("You can publish messages only to topics and endpoints in the
    same Amazon Web Services Region", the Publish reference); one from another region is refused."""
    parts = arn.split(":")
    if len(parts) > 3 and parts[0] == "arn" and parts[3] != ctx.region:
        raise invalid(member)  # AWS's answer (Publish, Subscribe and ConfirmSubscription reports on GitHub)


def resolve_resources(ctx: RequestContext, p: Params) -> list[str]:
    for key in ("TopicArn", "TargetArn", "ResourceArn", "PlatformApplicationArn", "EndpointArn"):
        if p.get(key):
            return [str(p[key])]
    if p.get("SubscriptionArn"):
        return [str(p["SubscriptionArn"]).rsplit(":", 1)[0]]
    if ctx.operation == "CreateTopic":
        return [f"arn:{ctx.partition}:sns:{ctx.region}:{ctx.account}:{p.get('Name', '')}"]
    return ["*"]
