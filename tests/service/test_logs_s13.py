"""Logs, session 13: Logs Insights' JSON functions and unnest (CWL_QuerySyntax-Unnest and the JSON
functions of CWL_QuerySyntax-operations-functions) through StartQuery/GetQueryResults on a real server."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from logs_setup import query_rows

BASE = (int(time.time()) // 3600 - 2) * 3_600_000  # PutLogEvents refuses events weeks old
DOCS = [{"events": [{"name": "exception"}, {"name": "user action"}]},
        {"accounts": [{"accountId": "a", "droppedSpans": 2, "type": "internal"}, {"accountId": "b", "droppedSpans": 3},
                      {"accountId": "a", "droppedSpans": 5, "type": "internal"}]}]


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


@pytest.fixture(scope="module")
def group(logs: Any) -> str:
    name = f"/logs-s13/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name)
    logs.create_log_stream(logGroupName=name, logStreamName="s")
    logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
        {"timestamp": BASE + i * 1000, "message": json.dumps(d)} for i, d in enumerate(DOCS)])
    return name


def _rows(logs: Any, group: str, text: str) -> list[dict[str, str]]:
    return query_rows(logs, group, text, BASE)


def test_unnest_a_parsed_list_into_one_record_per_item(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "fields jsonParse(@message) as json_message | unnest json_message.events into event"
                              " | display event.name")
    assert sorted(r["event.name"] for r in rows) == ["exception", "user action"]
    with pytest.raises(logs.exceptions.MalformedQueryException):  # `into` and its field are required
        logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                         queryString="fields jsonParse(@message) as js | unnest js.events")


def test_unnest_then_filter_and_aggregate(logs: Any, group: str) -> None:
    rows = _rows(logs, group, 'fields jsonParse(@message) as js | unnest js.accounts into account'
                              ' | filter account.type = "internal" | display account.accountId')
    assert rows == [{"account.accountId": "a"}, {"account.accountId": "a"}]
    rows = _rows(logs, group, "fields jsonParse(@message) as js | unnest js.accounts into account"
                              " | stats sum(account.droppedSpans) as n by account.accountId | sort n desc | limit 10")
    assert rows == [{"account.accountId": "a", "n": "7"}, {"account.accountId": "b", "n": "3"}]


def test_json_parse_members_and_json_stringify(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "fields jsonParse(@message) as js | filter ispresent(js.accounts)"
                              " | fields js.accounts.1.accountId as second, jsonStringify(js.accounts.1) as s"
                              " | display second, s")
    assert rows == [{"second": "b", "s": '{"accountId":"b","droppedSpans":3}'}]


def test_unmask_shows_the_event_as_stored(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "filter @message like 'exception' | fields unmask(@message) as m | display m")
    assert [json.loads(r["m"]) for r in rows] == [DOCS[0]]



# ------------------------------------------------------------------ field index policies
def _fresh_group(logs: Any, messages: list[dict[str, Any]], root: str = "/logs-s13-idx", **kw: Any) -> str:
    name = f"{root}/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name, **kw)
    logs.create_log_stream(logGroupName=name, logStreamName="s")
    if messages:
        logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
            {"timestamp": BASE + i * 1000, "message": json.dumps(m)} for i, m in enumerate(messages)])
    return name


def test_put_describe_delete_index_policy(logs: Any) -> None:
    name = _fresh_group(logs, [])
    arn = logs.describe_log_groups(logGroupNamePrefix=name)["logGroups"][0]["logGroupArn"]
    document = json.dumps({"Fields": ["TransactionId"], "FieldsV2": {"RequestId": {"type": "FIELD_INDEX"},
                                                                      "APIName": {"type": "FACET"}}})
    put = logs.put_index_policy(logGroupIdentifier=name, policyDocument=document)["indexPolicy"]
    assert put["logGroupIdentifier"] == arn and put["policyDocument"] == document and put["source"] == "LOG_GROUP"
    assert "policyName" not in put and isinstance(put["lastUpdateTime"], int)
    assert logs.describe_index_policies(logGroupIdentifiers=[arn])["indexPolicies"] == [put]
    logs.delete_index_policy(logGroupIdentifier=arn)
    assert logs.describe_index_policies(logGroupIdentifiers=[name])["indexPolicies"] == []
    with pytest.raises(logs.exceptions.ResourceNotFoundException):
        logs.delete_index_policy(logGroupIdentifier=name)
    logs.put_index_policy(logGroupIdentifier=name, policyDocument=document)
    logs.delete_log_group(logGroupName=name)  # the group's policy goes with it
    logs.create_log_group(logGroupName=name)
    assert logs.describe_index_policies(logGroupIdentifiers=[name])["indexPolicies"] == []


def test_account_field_index_policy_applies_until_a_group_has_its_own(logs: Any) -> None:
    name = _fresh_group(logs, [], root=f"/logs-s13-acct-{uuid.uuid4().hex[:8]}")
    prefix = name[: name.rindex("/") + 1]
    policy = f"idx{uuid.uuid4().hex[:8]}"
    logs.put_account_policy(policyName=policy, policyType="FIELD_INDEX_POLICY",
                            policyDocument=json.dumps({"Fields": ["userId"]}),
                            selectionCriteria=f'LogGroupNamePrefix IN ["{prefix}"]')
    try:
        got = logs.describe_index_policies(logGroupIdentifiers=[name])["indexPolicies"]
        assert [(p["source"], p.get("policyName")) for p in got] == [("ACCOUNT", policy)]
        logs.put_index_policy(logGroupIdentifier=name, policyDocument=json.dumps({"Fields": ["orderId"]}))
        got = logs.describe_index_policies(logGroupIdentifiers=[name])["indexPolicies"]
        assert [p["source"] for p in got] == ["LOG_GROUP"]
    finally:
        logs.delete_account_policy(policyName=policy, policyType="FIELD_INDEX_POLICY")


@pytest.mark.parametrize("document", [
    "not json", "[]", json.dumps({}), json.dumps({"Fields": []}), json.dumps({"Fields": [f"f{i}" for i in range(21)]}),
    json.dumps({"Fields": ["x" * 101]}), json.dumps({"Fields": ["a"], "FieldsV2": {"a": {"type": "FACET"}}}),
    json.dumps({"FieldsV2": {"a": {"type": "OTHER"}}}), json.dumps({"Fields": ["@message"]}),
])
def test_bad_index_policy_documents_are_refused_and_change_nothing(logs: Any, document: str) -> None:
    name = _fresh_group(logs, [])
    with pytest.raises(logs.exceptions.InvalidParameterException):
        logs.put_index_policy(logGroupIdentifier=name, policyDocument=document)
    assert logs.describe_index_policies(logGroupIdentifiers=[name])["indexPolicies"] == []


def test_index_policies_need_a_standard_group_that_exists(logs: Any) -> None:
    document = json.dumps({"Fields": ["a"]})
    with pytest.raises(logs.exceptions.ResourceNotFoundException):
        logs.put_index_policy(logGroupIdentifier=f"/logs-s13-idx/missing-{uuid.uuid4().hex}", policyDocument=document)
    rare = _fresh_group(logs, [], logGroupClass="INFREQUENT_ACCESS")
    with pytest.raises(logs.exceptions.InvalidParameterException):
        logs.put_index_policy(logGroupIdentifier=rare, policyDocument=document)


def test_describe_field_indexes_lists_indexes_with_events(logs: Any) -> None:
    name = _fresh_group(logs, [])
    logs.put_index_policy(logGroupIdentifier=name, policyDocument=json.dumps(
        {"Fields": ["requestId", "@@userId", "absent"], "FieldsV2": {"api": {"type": "FACET"}}}))
    logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
        {"timestamp": BASE + 1000, "message": json.dumps({"requestId": "r1", "@userId": "u", "api": "Get"})},
        {"timestamp": BASE + 5000, "message": json.dumps({"requestId": "r2"})}])
    got = {i["fieldIndexName"]: i for i in logs.describe_field_indexes(logGroupIdentifiers=[name])["fieldIndexes"]}
    assert set(got) == {"@logStream", "requestId", "@@userId", "api"}
    assert (got["requestId"]["firstEventTime"], got["requestId"]["lastEventTime"]) == (BASE + 1000, BASE + 5000)
    assert (got["api"]["type"], got["api"]["indexCategory"]) == ("FACET", "CUSTOM")
    assert got["@logStream"]["indexCategory"] == "DEFAULT"
    only = logs.describe_field_indexes(logGroupIdentifiers=[name], indexCategories=["CUSTOM"])["fieldIndexes"]
    assert {i["fieldIndexName"] for i in only} == {"requestId", "@@userId", "api"}


def test_filter_index_scans_only_groups_indexed_on_the_field(logs: Any) -> None:
    events = [{"requestId": "r1", "n": 1}, {"requestId": "r2", "n": 2}]
    indexed, plain = _fresh_group(logs, events), _fresh_group(logs, events)
    logs.put_index_policy(logGroupIdentifier=indexed, policyDocument=json.dumps({"Fields": ["requestId"]}))
    qid = logs.start_query(logGroupNames=[indexed, plain], startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                           queryString='filterIndex requestId = "r2" | fields @log, n')["queryId"]
    for _ in range(200):
        got = logs.get_query_results(queryId=qid)
        if got["status"] == "Complete":
            break
        time.sleep(0.05)
    rows = [{f["field"]: f["value"] for f in r if f["field"] != "@ptr"} for r in got["results"]]
    assert [r["n"] for r in rows] == ["2"] and rows[0]["@log"].endswith(":" + indexed)
    assert got["statistics"]["logGroupsScanned"] == 1.0
    # The indexed group's other event is skipped, not scanned; the unindexed group is not read at all.
    stats = got["statistics"]
    assert (stats["recordsScanned"], stats["estimatedRecordsSkipped"], stats["recordsMatched"]) == (1.0, 1.0, 1.0)
    assert stats["estimatedBytesSkipped"] == float(len(json.dumps(events[0])))
    with pytest.raises(logs.exceptions.MalformedQueryException):
        logs.start_query(logGroupName=indexed, startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                         queryString="filterIndex n > 1")


# ------------------------------------------------------------------ SOURCE
def _wait(logs: Any, qid: str) -> dict[str, Any]:
    for _ in range(200):
        got = logs.get_query_results(queryId=qid)
        if got["status"] not in ("Scheduled", "Running"):
            return dict(got)
        time.sleep(0.05)
    raise AssertionError("query did not finish")


def test_source_selects_log_groups_by_prefix_and_class(logs: Any) -> None:
    root = f"/logs-s13-src/{uuid.uuid4().hex[:8]}"
    for suffix, cls in (("/a", "STANDARD"), ("/b", "STANDARD"), ("/rare", "INFREQUENT_ACCESS")):
        logs.create_log_group(logGroupName=root + suffix, logGroupClass=cls)
        logs.create_log_stream(logGroupName=root + suffix, logStreamName="s")
        logs.put_log_events(logGroupName=root + suffix, logStreamName="s",
                            logEvents=[{"timestamp": BASE, "message": suffix}])

    def groups(query: str) -> list[str]:
        qid = logs.start_query(startTime=BASE // 1000, endTime=BASE // 1000 + 60, queryString=query)["queryId"]
        got = _wait(logs, qid)
        assert got["status"] == "Complete", got
        return sorted(f["value"].split(":", 1)[1] for r in got["results"] for f in r if f["field"] == "@log")

    assert groups(f"SOURCE logGroups(namePrefix: ['{root}/']) | fields @log") == [root + "/a", root + "/b"]
    assert groups(f"SOURCE logGroups(namePrefix: ['{root}/a', '{root}/r'], class: ['INFREQUENT_ACCESS'])"
                  " | fields @log") == [root + "/rare"]
    assert groups(f"SOURCE logGroups(namePrefix: ['{root}/'], accountIdentifiers: ['999999999999'])"
                  " | fields @log") == []
    qid = logs.start_query(startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                           queryString=f"SOURCE logGroups(namePrefix: ['{root}/b']) | stats count(*) as n")["queryId"]
    assert _wait(logs, qid)["statistics"]["logGroupsScanned"] == 1.0
    described = [q for q in logs.describe_queries()["queries"] if q["queryId"] == qid]
    assert described and described[0]["logGroupName"] == root + "/b"


def test_source_is_refused_with_group_parameters_or_out_of_place(logs: Any, group: str) -> None:
    with pytest.raises(logs.exceptions.InvalidParameterException):
        logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                         queryString="SOURCE logGroups() | fields @message")
    with pytest.raises(logs.exceptions.MalformedQueryException):  # SOURCE comes first or not at all
        logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                         queryString="fields @message | SOURCE logGroups()")
    for bad in ("SOURCE logGroups(namePrefix: [1]) | fields @message",
                "SOURCE logGroups(nope: ['a']) | fields @message"):
        with pytest.raises(logs.exceptions.MalformedQueryException):
            logs.start_query(startTime=BASE // 1000, endTime=BASE // 1000 + 60, queryString=bad)


def test_list_log_groups_by_field_index_names(logs: Any) -> None:
    indexed, plain = _fresh_group(logs, []), _fresh_group(logs, [])
    logs.put_index_policy(logGroupIdentifier=indexed, policyDocument=json.dumps({"Fields": ["requestId", "user.id"]}))
    pattern = "^/logs-s13-idx/"

    def listed(names: list[str]) -> set[str]:
        got = logs.list_log_groups(logGroupNamePattern=pattern, fieldIndexNames=names, limit=1000)["logGroups"]
        return {g["logGroupName"] for g in got} & {indexed, plain}

    assert listed(["requestId"]) == {indexed}
    assert listed(["requestId", "user.id"]) == {indexed}
    assert listed(["requestId", "other"]) == set()
    assert listed(["traceId"]) == {indexed, plain}  # a default field index of every Standard group


def test_comments_start_with_a_hash(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "# events with a list\nfields jsonParse(@message) as js # parsed once\n"
                              "| unnest js.events into e | display e.name # one row per event")
    assert sorted(r["e.name"] for r in rows) == ["exception", "user action"]


def test_account_field_index_policies_are_checked_as_index_policies(logs: Any) -> None:
    root = f"/logs-s13-acct-{uuid.uuid4().hex[:8]}"
    policy = f"idx{uuid.uuid4().hex[:8]}"
    fields = json.dumps({"Fields": ["userId"]})

    def put(name: str, document: str, criteria: str) -> None:
        logs.put_account_policy(policyName=name, policyType="FIELD_INDEX_POLICY", policyDocument=document,
                                selectionCriteria=criteria)

    for document in (json.dumps({}), json.dumps({"Fields": ["@message"]})):
        with pytest.raises(logs.exceptions.InvalidParameterException):
            put(policy, document, f'LogGroupNamePrefix IN ["{root}"]')
    with pytest.raises(logs.exceptions.InvalidParameterException):
        put(policy, fields, f'LogGroupName NOT IN ["{root}"]')
    put(policy, fields, f'LogGroupNamePrefix IN ["{root}/app"]')
    try:
        for overlapping in (f"{root}/app", f"{root}/apple", f"{root}/"):
            with pytest.raises(logs.exceptions.InvalidParameterException):
                put(policy + "b", fields, f'LogGroupNamePrefix IN ["{overlapping}"]')
        put(policy, json.dumps({"Fields": ["orderId"]}), f'LogGroupNamePrefix IN ["{root}/app"]')  # replaces itself
        names = [p["policyName"] for p in logs.describe_account_policies(policyType="FIELD_INDEX_POLICY")[
            "accountPolicies"]]
        assert policy in names and policy + "b" not in names
    finally:
        logs.delete_account_policy(policyName=policy, policyType="FIELD_INDEX_POLICY")


def test_fields_a_policy_stops_indexing_are_inactive(logs: Any) -> None:
    name = _fresh_group(logs, [])
    logs.put_index_policy(logGroupIdentifier=name, policyDocument=json.dumps({"Fields": ["a", "b"]}))
    logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
        {"timestamp": BASE + 1000, "message": json.dumps({"a": 1, "b": 2})}])

    def indexes(**kw: Any) -> set[tuple[str, str]]:
        got = logs.describe_field_indexes(logGroupIdentifiers=[name], **kw)["fieldIndexes"]
        return {(i["fieldIndexName"], i["indexCategory"]) for i in got if i["fieldIndexName"] in ("a", "b")}

    assert indexes() == {("a", "CUSTOM"), ("b", "CUSTOM")}
    logs.put_index_policy(logGroupIdentifier=name, policyDocument=json.dumps({"Fields": ["a"]}))
    logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
        {"timestamp": BASE + 2000, "message": json.dumps({"a": 3})}])
    assert indexes() == {("a", "CUSTOM"), ("b", "INACTIVE")}
    assert indexes(indexCategories=["CUSTOM"]) == {("a", "CUSTOM")}
    logs.delete_index_policy(logGroupIdentifier=name)
    assert indexes() == {("a", "INACTIVE"), ("b", "INACTIVE")}
    logs.put_index_policy(logGroupIdentifier=name, policyDocument=json.dumps({"Fields": ["b"]}))
    assert indexes(indexCategories=["INACTIVE"]) == {("a", "INACTIVE")}  # b is indexed again


def test_unmasking_needs_logs_unmask(aws: Callable[..., Any], logs: Any, group: str) -> None:
    role = f"unmask-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"}, "Action": "sts:AssumeRole"}]}
    allow = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["logs:StartQuery", "logs:GetQueryResults", "logs:GetLogEvents"],
         "Resource": "*"}]}
    iam = aws("iam")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role, PolicyName="read", PolicyDocument=json.dumps(allow))

    def session() -> Any:
        creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::000000000000:role/{role}", RoleSessionName="s1")[
            "Credentials"]
        return aws("logs", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                   session_token=creds["SessionToken"])

    mine = session()
    window = {"startTime": BASE // 1000, "endTime": BASE // 1000 + 60}
    assert _rows(mine, group, "fields @message | limit 1")  # reading without unmasking is allowed
    with pytest.raises(ClientError) as e:
        mine.start_query(logGroupName=group, queryString="fields unmask(@message) as m", **window)
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert "logs:Unmask" in e.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as e:  # read by the query's own language (`head` is PPL's alone)
        mine.start_query(logGroupName=group, queryString="fields unmask(@message) as m | head 1",
                         queryLanguage="PPL", **window)
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert "logs:Unmask" in e.value.response["Error"]["Message"]
    mine.get_log_events(logGroupName=group, logStreamName="s")
    with pytest.raises(ClientError) as e:
        mine.get_log_events(logGroupName=group, logStreamName="s", unmask=True)
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    iam.put_role_policy(RoleName=role, PolicyName="unmask", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "logs:Unmask", "Resource": "*"}]}))
    mine = session()
    assert _rows(mine, group, "filter @message like 'exception' | fields unmask(@message) as m | display m")
    assert mine.get_log_events(logGroupName=group, logStreamName="s", unmask=True)["events"]
