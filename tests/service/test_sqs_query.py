"""SQS's query protocol, as SDKs from before its move to JSON speak it: signed form posts
(`Action=...`, to the endpoint or to the queue's own URL), XML answers with the query names."""

from __future__ import annotations

import hashlib
import sys
import urllib.error
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).parents[1]))
from serverproc import signed_headers

NS = {"q": "http://queue.amazonaws.com/doc/2012-11-05/"}


def post(url: str, fields: dict[str, str]) -> tuple[int, ET.Element]:
    body = urlencode({**fields, "Version": "2012-11-05"}).encode()
    headers = signed_headers("POST", url, "sqs", body, {"Content-Type": "application/x-www-form-urlencoded"})
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, ET.fromstring(resp.read())
    except urllib.error.HTTPError as err:  # a 4xx still carries the query error document
        with err:
            return err.code, ET.fromstring(err.read())


def test_query_round_trip(endpoint: str) -> None:
    name = f"query-{uuid.uuid4().hex[:8]}"
    status, doc = post(endpoint + "/", {"Action": "CreateQueue", "QueueName": name, "Attribute.1.Name":
                                        "VisibilityTimeout", "Attribute.1.Value": "9", "Tag.1.Key": "t",
                                        "Tag.1.Value": "v"})
    assert status == 200
    url = doc.findtext("q:CreateQueueResult/q:QueueUrl", namespaces=NS)
    assert url and url.endswith(f"/{name}")
    # A query client posts to the queue URL itself.
    status, doc = post(url, {"Action": "SendMessage", "MessageBody": "hi", "MessageAttribute.1.Name": "k",
                             "MessageAttribute.1.Value.DataType": "String",
                             "MessageAttribute.1.Value.StringValue": "v"})
    assert status == 200
    assert doc.findtext("q:SendMessageResult/q:MD5OfMessageBody", namespaces=NS) == hashlib.md5(b"hi").hexdigest()
    md5_attrs = doc.findtext("q:SendMessageResult/q:MD5OfMessageAttributes", namespaces=NS)
    status, doc = post(url, {"Action": "ReceiveMessage", "AttributeName.1": "All", "MessageAttributeName.1": "All"})
    [msg] = doc.findall("q:ReceiveMessageResult/q:Message", NS)
    assert msg.findtext("q:Body", namespaces=NS) == "hi"
    assert msg.findtext("q:MD5OfMessageAttributes", namespaces=NS) == md5_attrs
    attrs = {a.findtext("q:Name", namespaces=NS): a.findtext("q:Value", namespaces=NS)
             for a in msg.findall("q:Attribute", NS)}
    assert attrs["ApproximateReceiveCount"] == "1"
    [mattr] = msg.findall("q:MessageAttribute", NS)
    assert mattr.findtext("q:Name", namespaces=NS) == "k"
    assert mattr.findtext("q:Value/q:StringValue", namespaces=NS) == "v"
    status, doc = post(endpoint + "/", {"Action": "GetQueueAttributes", "QueueUrl": url,
                                        "AttributeName.1": "VisibilityTimeout"})
    [attr] = doc.findall("q:GetQueueAttributesResult/q:Attribute", NS)
    assert (attr.findtext("q:Name", namespaces=NS), attr.findtext("q:Value", namespaces=NS)) == ("VisibilityTimeout",
                                                                                                   "9")
    status, doc = post(url, {"Action": "DeleteMessage", "ReceiptHandle":
                             msg.findtext("q:ReceiptHandle", namespaces=NS) or ""})
    assert status == 200


def test_query_errors_carry_the_query_codes(endpoint: str) -> None:
    status, doc = post(endpoint + "/", {"Action": "GetQueueUrl", "QueueName": "no-such-queue-here"})
    assert status == 400
    assert doc.findtext("q:Error/q:Code", namespaces=NS) == "AWS.SimpleQueueService.NonExistentQueue"
    assert doc.findtext("q:Error/q:Type", namespaces=NS) == "Sender"
    status, doc = post(endpoint + "/", {"Action": "Frobnicate"})
    assert status == 400 and doc.findtext("q:Error/q:Code", namespaces=NS) == "InvalidAction"




def test_query_long_poll_answers_an_empty_result(endpoint: str) -> None:
    name = f"query-poll-{uuid.uuid4().hex[:8]}"
    _, doc = post(endpoint + "/", {"Action": "CreateQueue", "QueueName": name})
    url = doc.findtext("q:CreateQueueResult/q:QueueUrl", namespaces=NS) or ""
    status, doc = post(url, {"Action": "ReceiveMessage", "WaitTimeSeconds": "1"})
    assert status == 200 and doc.find("q:ReceiveMessageResult", NS) is not None
    assert doc.findall("q:ReceiveMessageResult/q:Message", NS) == []
