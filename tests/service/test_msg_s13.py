"""SNS and EventBridge behaviour added in session 13 (issue 19): Publish's Subject rule, SNS's data
protection policies and SMS sandbox, EventBridge's global endpoints."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sns_setup import bodies, make_queue


def _name() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def _error(exc: pytest.ExceptionInfo[Any]) -> tuple[str, str]:
    err = exc.value.response["Error"]
    return err["Code"], err["Message"]


def _error_of(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ClientError) as exc:
        call()
    return _error(exc)


# ---------------------------------------------------------------------- SNS Subject
# The API reference: "UTF-8 text with no line breaks or control characters, and less than 100
# characters long".
TAKEN = ("Déjà vu – ünïcödé", "family \U0001F468\u200D\U0001F469\u200D\U0001F467", "no\u00a0break space",
         "日本語の件名")
REFUSED = ("tab\there", "carriage\rreturn", "line\u2028separator", "bell\x07", "next\x85line", "é" * 100)


def test_a_subject_is_utf8_text_without_control_characters_or_line_breaks(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name=_name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn)
    for subject in TAKEN:
        assert sns.publish(TopicArn=topic, Message="m", Subject=subject)["MessageId"]
    for subject in REFUSED:  # what the looser rule must still refuse
        with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
            sns.publish(TopicArn=topic, Message="m", Subject=subject)
        assert _error(exc) == ("InvalidParameter", "Invalid parameter: Subject")
    got = [json.loads(b)["Subject"] for b in bodies(sqs, url)]
    assert sorted(got) == sorted(TAKEN)


def test_a_batch_takes_the_same_subjects_and_refuses_all_for_one_bad_one(sns: Any, sqs: Any) -> None:
    """An entry's bad input refuses the whole batch, as AWS does for its other entry checks (LocalStack's
    AWS-validated test_publish_batch_exceptions); none of the batch is published."""
    topic = sns.create_topic(Name=_name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    entries = [{"Id": f"e{i}", "Message": f"m{i}", "Subject": s} for i, s in enumerate(TAKEN)]
    got = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    assert sorted(e["Id"] for e in got["Successful"]) == sorted(e["Id"] for e in entries) and not got["Failed"]
    assert len(bodies(sqs, url)) == len(TAKEN)
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "ok", "Message": "fine", "Subject": TAKEN[1]}, {"Id": "bad", "Message": "m", "Subject": "a\nb"}])
    assert _error(exc) == ("InvalidParameter", "Invalid parameter: Subject")
    assert bodies(sqs, url) == []



def test_a_publish_to_a_mobile_endpoint_or_a_number_is_checked_as_one_to_a_topic(sns: Any) -> None:
    """Subject, empty message, attributes and size are Publish's checks whatever it goes to (LocalStack's
    publish, after AWS's, runs them before it looks at the target); an endpoint's MessageStructure json
    needs no "default" (its platform's key is used)."""
    app = sns.create_platform_application(Name=_name(), Platform="GCM",
                                          Attributes={"PlatformCredential": "key"})["PlatformApplicationArn"]
    endpoint = sns.create_platform_endpoint(PlatformApplicationArn=app, Token=_name())["EndpointArn"]
    bad_attribute = {"a": {"DataType": "Number", "StringValue": "not a number"}}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"Message": ""}, "Invalid parameter: Empty message"),
        ({"Message": "m", "Subject": ""}, "Invalid parameter: Subject"),
        ({"Message": "m", "Subject": "a\nb"}, "Invalid parameter: Subject"),
        ({"Message": "m" * (256 * 1024 + 1)}, "Invalid parameter: Message too long"),
        ({"Message": "m", "MessageAttributes": bad_attribute}, "Could not cast message attribute 'a' value to number."),
    ]
    for target in ({"TargetArn": endpoint}, {"PhoneNumber": "+15555550123"}):
        for args, message in cases:
            with pytest.raises(ClientError) as exc:
                sns.publish(**target, **args)
            assert _error(exc)[1] == message, (target, args)
        assert sns.publish(**target, Message="fine", Subject=TAKEN[1])["MessageId"]
    # the number is checked after the text, before the attributes
    assert _error_of(lambda: sns.publish(PhoneNumber="12", Message="")) == (
        "InvalidParameter", "Invalid parameter: Empty message")
    assert _error_of(lambda: sns.publish(PhoneNumber="+1-555", Message="m", MessageAttributes=bad_attribute)) == (
        "InvalidParameter", "Invalid parameter: PhoneNumber Reason: +1-555 is not valid to publish to")
    gcm_only = json.dumps({"GCM": json.dumps({"notification": {"body": "hi"}})})
    assert sns.publish(TargetArn=endpoint, Message=gcm_only, MessageStructure="json")["MessageId"]
    assert _error_of(lambda: sns.publish(TargetArn=endpoint, Message="{nope", MessageStructure="json")) == (
        "InvalidParameter", "Invalid parameter: Message Structure - JSON message body failed to parse")


# ---------------------------------------------------------------------- SNS MaximumMessageSize
# The developer guide's "Publishing large messages": 1,024 to 1,048,576 bytes, 262,144 by default; the
# body and attributes together count; above 256 KiB at most 100 subscriptions, to SQS, Firehose or Lambda.
def test_a_topic_takes_messages_up_to_its_maximum_message_size(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name=_name(), Attributes={"MaximumMessageSize": "1048576"})["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["MaximumMessageSize"] == "1048576"
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    big = "b" * (700 * 1024)
    assert sns.publish(TopicArn=topic, Message=big)["MessageId"]
    assert bodies(sqs, url) == [big]
    over, attribute = "o" * (1024 * 1024 - 9), {"k": {"DataType": "String", "StringValue": "v" * 20}}
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:  # the attribute tips it over
        sns.publish(TopicArn=topic, Message=over, MessageAttributes=attribute)
    assert _error(exc)[1] == "Invalid parameter: Message too long"
    half = "h" * (400 * 1024)
    got = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
        {"Id": "a", "Message": half}, {"Id": "b", "Message": half}])
    assert len(got["Successful"]) == 2
    assert _error_of(lambda: sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
        {"Id": str(i), "Message": half} for i in range(3)]))[0] == "BatchRequestTooLong"
    small = sns.create_topic(Name=_name(), Attributes={"MaximumMessageSize": "1024"})["TopicArn"]
    assert sns.publish(TopicArn=small, Message="s" * 1024)["MessageId"]
    too_long = _error_of(lambda: sns.publish(TopicArn=small, Message="s" * 1025))
    assert too_long == ("InvalidParameter", "Invalid parameter: Message too long")
    sns.set_topic_attributes(TopicArn=small, AttributeName="MaximumMessageSize", AttributeValue="2048")
    assert sns.publish(TopicArn=small, Message="s" * 2048)["MessageId"]


def test_maximum_message_size_is_held_to_its_range_and_its_subscriptions(sns: Any, sqs: Any) -> None:
    for value in ("1023", "1048577", "big", ""):
        with pytest.raises(sns.exceptions.InvalidParameterException):
            sns.create_topic(Name=_name(), Attributes={"MaximumMessageSize": value})
    topic = sns.create_topic(Name=_name())["TopicArn"]
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.set_topic_attributes(TopicArn=topic, AttributeName="MaximumMessageSize", AttributeValue="2000000")
    sns.subscribe(TopicArn=topic, Protocol="email", Endpoint="someone@example.com")
    with pytest.raises(sns.exceptions.InvalidParameterException):  # email cannot take large messages
        sns.set_topic_attributes(TopicArn=topic, AttributeName="MaximumMessageSize", AttributeValue="300000")
    sns.set_topic_attributes(TopicArn=topic, AttributeName="MaximumMessageSize", AttributeValue="200000")
    assert "MaximumMessageSize" not in sns.get_topic_attributes(TopicArn=sns.create_topic(Name=_name())[
        "TopicArn"])["Attributes"]  # listed only once set
    large = sns.create_topic(Name=_name(), Attributes={"MaximumMessageSize": "524288"})["TopicArn"]
    _, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=large, Protocol="sqs", Endpoint=qarn)
    for protocol, endpoint in (("email", "someone@example.com"), ("https", "https://example.com/hook"),
                               ("sms", "+15555550123")):
        with pytest.raises(sns.exceptions.InvalidParameterException):
            sns.subscribe(TopicArn=large, Protocol=protocol, Endpoint=endpoint)
    assert len(sns.list_subscriptions_by_topic(TopicArn=large)["Subscriptions"]) == 1

# ---------------------------------------------------------------------- SNS data protection policies
POLICY = json.dumps({"Name": "__default_data_protection_policy", "Description": "mask emails", "Version": "2021-06-01",
                     "Statement": [{"Sid": "deny", "DataDirection": "Inbound", "Principal": ["*"],
                                    "DataIdentifier": ["arn:aws:dataprotection::aws:data-identifier/EmailAddress"],
                                    "Operation": {"Deny": {}}}]})


def test_a_data_protection_policy_is_kept_per_topic(sns: Any) -> None:
    topic = sns.create_topic(Name=_name())["TopicArn"]
    assert "DataProtectionPolicy" not in sns.get_data_protection_policy(ResourceArn=topic)
    sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy=POLICY)
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == POLICY
    other = sns.create_topic(Name=_name(), DataProtectionPolicy=POLICY)["TopicArn"]
    assert sns.get_data_protection_policy(ResourceArn=other)["DataProtectionPolicy"] == POLICY
    replaced = json.dumps({**json.loads(POLICY), "Description": "v2"})
    sns.put_data_protection_policy(ResourceArn=other, DataProtectionPolicy=replaced)
    assert sns.get_data_protection_policy(ResourceArn=other)["DataProtectionPolicy"] == replaced
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == POLICY
    sns.delete_topic(TopicArn=other)  # the policy goes with its topic
    sns.create_topic(Name=other.rsplit(":", 1)[1])
    assert "DataProtectionPolicy" not in sns.get_data_protection_policy(ResourceArn=other)


def test_a_data_protection_policy_must_be_json_and_its_topic_must_exist(sns: Any) -> None:
    topic = sns.create_topic(Name=_name())["TopicArn"]
    sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy=POLICY)
    for bad in ("{not json", "[1, 2]", "x" * 30_721):
        with pytest.raises(sns.exceptions.InvalidParameterException):
            sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy=bad)
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == POLICY  # unchanged
    name = _name()
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.create_topic(Name=name, DataProtectionPolicy="{nope")
    assert not [t for t in sns.list_topics()["Topics"] if t["TopicArn"].endswith(":" + name)]  # none made
    missing = topic + "-missing"
    for call in (lambda: sns.get_data_protection_policy(ResourceArn=missing),
                 lambda: sns.put_data_protection_policy(ResourceArn=missing, DataProtectionPolicy=POLICY)):
        with pytest.raises(sns.exceptions.NotFoundException) as exc:
            call()
        assert _error(exc) == ("NotFound", "Topic does not exist")


# ---------------------------------------------------------------------- SNS SMS sandbox
def _number() -> str:
    return "+1555" + f"{uuid.uuid4().int % 10**7:07d}"


def _otp(server: Any, number: str) -> str:
    found = re.findall(rf"one-time password for {re.escape(number)} \(account \d+, [a-z0-9-]+\) is (\d+)", server.log())
    assert found, "the OTP is in the server log"
    return str(found[-1])


@pytest.fixture
def sandbox_sns(aws: Callable[..., Any]) -> Any:
    """A client of an account of its own (a 12-digit access key names it): the sandbox's 10 numbers are
    per account and region."""
    return aws("sns", access_key=f"{uuid.uuid4().int % 10**12:012d}")


def test_the_account_is_in_the_sms_sandbox_without_origination_numbers(sandbox_sns: Any) -> None:
    assert sandbox_sns.get_sms_sandbox_account_status()["IsInSandbox"] is True
    assert sandbox_sns.list_origination_numbers()["PhoneNumbers"] == []
    assert sandbox_sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"] == []


def test_a_sandbox_number_is_verified_with_the_otp_in_the_server_log(server: Any, sandbox_sns: Any) -> None:
    number = _number()
    sandbox_sns.create_sms_sandbox_phone_number(PhoneNumber=number, LanguageCode="de-DE")
    assert sandbox_sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"] == [
        {"PhoneNumber": number, "Status": "Pending"}]
    otp = _otp(server, number)
    wrong = f"{(int(otp) + 1) % 10**6:06d}"
    with pytest.raises(sandbox_sns.exceptions.VerificationException) as exc:
        sandbox_sns.verify_sms_sandbox_phone_number(PhoneNumber=number, OneTimePassword=wrong)
    assert exc.value.response["Error"]["Code"] == "VerificationException"
    assert exc.value.response["Error"]["Status"]
    assert sandbox_sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"][0]["Status"] == "Pending"
    sandbox_sns.verify_sms_sandbox_phone_number(PhoneNumber=number, OneTimePassword=otp)
    assert sandbox_sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"] == [
        {"PhoneNumber": number, "Status": "Verified"}]
    # deleted only 24 hours after the verification (the developer guide's rule)
    with pytest.raises(sandbox_sns.exceptions.UserErrorException):
        sandbox_sns.delete_sms_sandbox_phone_number(PhoneNumber=number)
    assert len(sandbox_sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"]) == 1


def test_a_pending_sandbox_number_is_deleted_and_unknown_ones_are_not_found(sandbox_sns: Any) -> None:
    number = _number()
    sandbox_sns.create_sms_sandbox_phone_number(PhoneNumber=number)
    sandbox_sns.delete_sms_sandbox_phone_number(PhoneNumber=number)
    assert sandbox_sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"] == []
    for call in (lambda: sandbox_sns.delete_sms_sandbox_phone_number(PhoneNumber=number),
                 lambda: sandbox_sns.verify_sms_sandbox_phone_number(PhoneNumber=number, OneTimePassword="123456")):
        with pytest.raises(sandbox_sns.exceptions.ResourceNotFoundException) as exc:
            call()
        assert exc.value.response["Error"]["Code"] == "ResourceNotFound"
        assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_the_sandbox_holds_ten_numbers_listed_in_pages(sandbox_sns: Any) -> None:
    numbers = [_number() for _ in range(10)]
    for number in numbers:
        sandbox_sns.create_sms_sandbox_phone_number(PhoneNumber=number)
    with pytest.raises(sandbox_sns.exceptions.UserErrorException):
        sandbox_sns.create_sms_sandbox_phone_number(PhoneNumber=_number())
    seen: list[str] = []
    token: str | None = None
    while True:
        page = sandbox_sns.list_sms_sandbox_phone_numbers(MaxResults=4, **({"NextToken": token} if token else {}))
        assert len(page["PhoneNumbers"]) <= 4
        seen += [n["PhoneNumber"] for n in page["PhoneNumbers"]]
        token = page.get("NextToken")
        if not token:
            break
    assert seen == numbers
    with pytest.raises(sandbox_sns.exceptions.InvalidParameterException):
        sandbox_sns.list_sms_sandbox_phone_numbers(NextToken="not-a-token")
    with pytest.raises(sandbox_sns.exceptions.InvalidParameterException):
        sandbox_sns.create_sms_sandbox_phone_number(PhoneNumber="12345")  # not E.164


# ---------------------------------------------------------------------- EventBridge global endpoints
def _events_role(iam: Any, service: str = "events.amazonaws.com") -> str:
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": service},
                                                     "Action": "sts:AssumeRole"}]}
    return str(iam.create_role(RoleName=_name(), AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"])


def _endpoint_args(name: str, bus: str = "orders", secondary: str = "us-west-2",
                   regions: tuple[str, str] = ("us-east-1", "us-west-2")) -> dict[str, Any]:
    return {"Name": name, "RoutingConfig": {"FailoverConfig": {
        "Primary": {"HealthCheck": "arn:aws:route53:::healthcheck/0a1b2c3d-example"},
        "Secondary": {"Route": secondary}}},
        "EventBuses": [{"EventBusArn": f"arn:aws:events:{r}:000000000000:event-bus/{bus}"} for r in regions]}


@pytest.fixture
def events(aws: Callable[..., Any]) -> Any:
    return aws("events")


def test_a_global_endpoint_is_created_active_listed_updated_and_deleted(events: Any, iam: Any) -> None:
    role, name = _events_role(iam), _name()
    made = events.create_endpoint(**_endpoint_args(name), RoleArn=role, Description="orders failover")
    assert made["State"] == "CREATING" and made["Name"] == name and made["RoleArn"] == role
    assert made["Arn"] == f"arn:aws:events:us-east-1:000000000000:endpoint/{name}"
    assert made["ReplicationConfig"] == {"State": "ENABLED"}  # the default
    got = events.describe_endpoint(Name=name)
    assert got["State"] == "ACTIVE" and got["Description"] == "orders failover"
    assert got["EventBuses"] == made["EventBuses"] and got["RoutingConfig"] == made["RoutingConfig"]
    assert re.fullmatch(r"[a-z0-9]+\.[a-z]+", got["EndpointId"])
    assert got["EndpointUrl"] == f"https://{got['EndpointId']}.endpoints.event.amazonaws.com"
    assert got["CreationTime"] <= got["LastModifiedTime"]
    assert events.describe_endpoint(Name=name, HomeRegion="us-east-1")["Arn"] == made["Arn"]
    listed = events.list_endpoints(NamePrefix=name)["Endpoints"]
    assert [e["Name"] for e in listed] == [name] and listed[0]["State"] == "ACTIVE"
    assert events.list_endpoints(NamePrefix=name, HomeRegion="eu-west-1")["Endpoints"] == []
    updated = events.update_endpoint(Name=name, ReplicationConfig={"State": "DISABLED"}, Description="v2")
    assert updated["State"] == "UPDATING" and updated["ReplicationConfig"] == {"State": "DISABLED"}
    assert updated["EndpointId"] == got["EndpointId"]
    again = events.describe_endpoint(Name=name)
    assert again["State"] == "ACTIVE" and again["Description"] == "v2" and again["RoleArn"] == role
    events.delete_endpoint(Name=name)
    for call in (lambda: events.describe_endpoint(Name=name), lambda: events.delete_endpoint(Name=name),
                 lambda: events.update_endpoint(Name=name, Description="x")):
        with pytest.raises(events.exceptions.ResourceNotFoundException):
            call()


def test_a_global_endpoint_is_held_to_its_rules(events: Any, iam: Any) -> None:
    role, name = _events_role(iam), _name()
    events.create_endpoint(**_endpoint_args(name), RoleArn=role)
    with pytest.raises(events.exceptions.ResourceAlreadyExistsException):
        events.create_endpoint(**_endpoint_args(name), RoleArn=role)
    other = _name()
    bad = [
        _endpoint_args(other),  # replication (the default) without a role
        {**_endpoint_args(other), "RoleArn": _events_role(iam, "lambda.amazonaws.com")},  # events cannot assume it
        {**_endpoint_args(other), "ReplicationConfig": {"State": "DISABLED"}, "EventBuses": [
            {"EventBusArn": "arn:aws:events:us-east-1:000000000000:event-bus/a"},
            {"EventBusArn": "arn:aws:events:us-west-2:000000000000:event-bus/b"}]},  # names differ
        {**_endpoint_args(other, regions=("us-east-1", "us-east-1")), "ReplicationConfig": {"State": "DISABLED"}},
        {**_endpoint_args(other, secondary="eu-west-1"), "ReplicationConfig": {"State": "DISABLED"}},
        {**_endpoint_args(other, regions=("eu-west-1", "us-west-2")), "ReplicationConfig": {"State": "DISABLED"}},
    ]
    for args in bad:
        with pytest.raises(events.exceptions.ClientError) as exc:
            events.create_endpoint(**args)
        assert _error(exc)[0] == "ValidationException", args
    assert [e["Name"] for e in events.list_endpoints(NamePrefix=other)["Endpoints"]] == []  # none made
    lambda_role = bad[1]["RoleArn"]
    assert _error_of(lambda: events.create_endpoint(**bad[1])) == (
        "ValidationException", f"Provided role '{lambda_role}' cannot be assumed by principal 'events.amazonaws.com'.")
    with pytest.raises(events.exceptions.ClientError) as exc:  # an update is held to the same rules
        events.update_endpoint(Name=name, RoutingConfig=_endpoint_args(name, secondary="eu-west-1")["RoutingConfig"])
    assert _error(exc)[0] == "ValidationException"
    assert events.describe_endpoint(Name=name)["RoutingConfig"]["FailoverConfig"]["Secondary"] == {"Route": "us-west-2"}


def test_global_endpoints_are_listed_in_pages(events: Any) -> None:
    prefix = _name()
    names = [f"{prefix}-{i}" for i in range(5)]
    for name in names:
        events.create_endpoint(**_endpoint_args(name), ReplicationConfig={"State": "DISABLED"})
    seen: list[str] = []
    token: str | None = None
    while True:
        page = events.list_endpoints(NamePrefix=prefix, MaxResults=2, **({"NextToken": token} if token else {}))
        assert len(page["Endpoints"]) <= 2
        seen += [e["Name"] for e in page["Endpoints"]]
        token = page.get("NextToken")
        if not token:
            break
    assert seen == names


# ---------------------------------------------------------------------- EventBridge partner event sources
def _account_client(aws: Callable[..., Any], service: str) -> tuple[str, Any]:
    account = f"{uuid.uuid4().int % 10**12:012d}"
    return account, aws(service, access_key=account)


def test_a_partner_event_source_becomes_a_bus_that_takes_partner_events(aws: Callable[..., Any]) -> None:
    _, partner = _account_client(aws, "events")
    customer_account, customer = _account_client(aws, "events")
    customer_sqs = aws("sqs", access_key=customer_account)
    name = f"aws.partner/saas.example.com/{uuid.uuid4().hex[:8]}/orders"
    arn = partner.create_partner_event_source(Name=name, Account=customer_account)["EventSourceArn"]
    assert arn == f"arn:aws:events:us-east-1::event-source/{name}"
    described = partner.describe_partner_event_source(Name=name)
    assert (described["Arn"], described["Name"]) == (arn, name)
    assert [s["Name"] for s in partner.list_partner_event_sources(NamePrefix=name)["PartnerEventSources"]] == [name]
    offered = partner.list_partner_event_source_accounts(EventSourceName=name)["PartnerEventSourceAccounts"]
    assert [(a["Account"], a["State"]) for a in offered] == [(customer_account, "PENDING")]
    seen = customer.describe_event_source(Name=name)
    assert seen["State"] == "PENDING" and seen["CreatedBy"] == "saas.example.com" and "ExpirationTime" in seen
    assert [s["Name"] for s in customer.list_event_sources(NamePrefix="aws.partner/")["EventSources"]] == [name]
    with pytest.raises(customer.exceptions.ResourceNotFoundException):  # not the partner's view
        partner.describe_event_source(Name=name)
    # events to a source without its bus are not delivered
    entry = {"Source": name, "DetailType": "OrderPlaced", "Detail": json.dumps({"id": 7})}
    early = partner.put_partner_events(Entries=[entry])
    assert early["FailedEntryCount"] == 1 and early["Entries"][0]["ErrorCode"]
    bus_arn = customer.create_event_bus(Name=name, EventSourceName=name)["EventBusArn"]
    assert bus_arn == f"arn:aws:events:us-east-1:{customer_account}:event-bus/{name}"
    assert customer.describe_event_source(Name=name)["State"] == "ACTIVE"
    assert "ExpirationTime" not in customer.describe_event_source(Name=name)
    url = customer_sqs.create_queue(QueueName=_name())["QueueUrl"]
    qarn = customer_sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    customer_sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": qarn}]})})
    customer.put_rule(Name="orders", EventBusName=name, EventPattern=json.dumps({"source": [name]}))
    customer.put_targets(Rule="orders", EventBusName=name, Targets=[{"Id": "q", "Arn": qarn}])
    sent = partner.put_partner_events(Entries=[entry, {"Source": name, "DetailType": "x", "Detail": "[not json"}])
    assert sent["FailedEntryCount"] == 1 and sent["Entries"][0]["EventId"]
    assert sent["Entries"][1]["ErrorCode"] == "MalformedDetail"
    got = customer_sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)["Messages"]
    event = json.loads(got[0]["Body"])
    assert event["source"] == name and event["account"] == customer_account and event["detail"] == {"id": 7}
    assert event["id"] == sent["Entries"][0]["EventId"]
    # deactivated: PENDING, and partner events are not delivered; activated again: ACTIVE
    customer.deactivate_event_source(Name=name)
    assert customer.describe_event_source(Name=name)["State"] == "PENDING"
    assert partner.put_partner_events(Entries=[entry])["FailedEntryCount"] == 1
    with pytest.raises(customer.exceptions.InvalidStateException):
        customer.deactivate_event_source(Name=name)
    customer.activate_event_source(Name=name)
    assert customer.describe_event_source(Name=name)["State"] == "ACTIVE"
    with pytest.raises(customer.exceptions.InvalidStateException):
        customer.activate_event_source(Name=name)
    partner.delete_partner_event_source(Name=name, Account=customer_account)
    # the customer still has the bus: the source shows DELETED (DeletePartnerEventSource's reference)
    assert customer.describe_event_source(Name=name)["State"] == "DELETED"


def test_a_partner_event_bus_needs_its_pending_source(aws: Callable[..., Any]) -> None:
    _, partner = _account_client(aws, "events")
    customer_account, customer = _account_client(aws, "events")
    _, stranger = _account_client(aws, "events")
    name = f"aws.partner/saas.example.com/{uuid.uuid4().hex[:8]}/orders"
    partner.create_partner_event_source(Name=name, Account=customer_account)
    with pytest.raises(partner.exceptions.ResourceAlreadyExistsException):
        partner.create_partner_event_source(Name=name, Account=customer_account)
    with pytest.raises(stranger.exceptions.ResourceNotFoundException):  # offered to another account
        stranger.create_event_bus(Name=name, EventSourceName=name)
    with pytest.raises(customer.exceptions.ClientError) as exc:  # the bus takes the source's name
        customer.create_event_bus(Name="other", EventSourceName=name)
    assert _error(exc)[0] == "ValidationException"
    with pytest.raises(customer.exceptions.ClientError) as exc:  # only a partner bus may have '/' in its name
        customer.create_event_bus(Name=name)
    assert _error(exc)[0] == "ValidationException"
    with pytest.raises(customer.exceptions.InvalidStateException):  # no matching bus yet
        customer.activate_event_source(Name=name)
    customer.create_event_bus(Name=name, EventSourceName=name)
    customer.delete_event_bus(Name=name)  # the source waits for a bus again
    assert customer.describe_event_source(Name=name)["State"] == "PENDING"
    customer.create_event_bus(Name=name, EventSourceName=name)
    assert customer.describe_event_source(Name=name)["State"] == "ACTIVE"
    with pytest.raises(stranger.exceptions.ResourceNotFoundException):  # not the partner: nothing to describe
        stranger.describe_partner_event_source(Name=name)
    assert stranger.put_partner_events(Entries=[{"Source": name, "DetailType": "d", "Detail": "{}"}])[
        "FailedEntryCount"] == 1
