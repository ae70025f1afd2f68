"""The query protocol of a service that moved to JSON (SQS): older SDKs and CLIs still send
`Action=SendMessage&MessageAttribute.1.Name=...` and read XML back. The JSON model botocore ships
dropped the query names, so they are put back here (from the SQS query API reference, 2012-11-05)
into a copy of the model, and that copy is served with the query protocol's parser and renderer.
"""

from __future__ import annotations

import copy
from typing import Any

# service -> the XML namespace its query answers carry
NAMESPACES = {"sqs": "http://queue.amazonaws.com/doc/2012-11-05/"}

# Flattened lists: list shape -> the name each item goes by ('AttributeName.1', '<Message>').
_SQS_LIST_ITEMS = {
    "AWSAccountIdList": "AWSAccountId", "ActionNameList": "ActionName", "AttributeNameList": "AttributeName",
    "BatchResultErrorEntryList": "BatchResultErrorEntry",
    "ChangeMessageVisibilityBatchRequestEntryList": "ChangeMessageVisibilityBatchRequestEntry",
    "ChangeMessageVisibilityBatchResultEntryList": "ChangeMessageVisibilityBatchResultEntry",
    "DeleteMessageBatchRequestEntryList": "DeleteMessageBatchRequestEntry",
    "DeleteMessageBatchResultEntryList": "DeleteMessageBatchResultEntry",
    "ListMessageMoveTasksResultEntryList": "ListMessageMoveTasksResultEntry",
    "MessageAttributeNameList": "MessageAttributeName", "MessageList": "Message",
    "MessageSystemAttributeList": "MessageSystemAttributeName", "QueueUrlList": "QueueUrl",
    "SendMessageBatchRequestEntryList": "SendMessageBatchRequestEntry",
    "SendMessageBatchResultEntryList": "SendMessageBatchResultEntry", "TagKeyList": "TagKey",
}
# Flattened maps: map shape -> (the name each entry goes by, its key's name, its value's name).
_SQS_MAPS = {
    "MessageBodyAttributeMap": ("MessageAttribute", "Name", "Value"),
    "MessageBodySystemAttributeMap": ("MessageSystemAttribute", "Name", "Value"),
    "MessageSystemAttributeMap": ("Attribute", "Name", "Value"),
    "QueueAttributeMap": ("Attribute", "Name", "Value"),
    "TagMap": ("Tag", "Key", "Value"),
}
_SQS_MEMBERS = {("MessageAttributeValue", "StringListValues"): "StringListValue",
                ("MessageAttributeValue", "BinaryListValues"): "BinaryListValue",
                ("MessageSystemAttributeValue", "StringListValues"): "StringListValue",
                ("MessageSystemAttributeValue", "BinaryListValues"): "BinaryListValue"}
_LIST_ITEMS = {"sqs": _SQS_LIST_ITEMS}
_MAPS = {"sqs": _SQS_MAPS}
_MEMBERS = {"sqs": _SQS_MEMBERS}


def query_model(service: str, model: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON service model with its query protocol's names and namespace."""
    out = copy.deepcopy(model)
    out["metadata"] = {**out["metadata"], "protocol": "query", "xmlNamespace": NAMESPACES[service]}
    out["metadata"].pop("targetPrefix", None)
    shapes = out["shapes"]
    items, maps, members = _LIST_ITEMS[service], _MAPS[service], _MEMBERS[service]
    for shape_name, shape in shapes.items():
        if shape_name in maps:
            _, key, value = maps[shape_name]
            shape["key"] = {**shape["key"], "locationName": key}
            shape["value"] = {**shape["value"], "locationName": value}
        if shape["type"] != "structure":
            continue
        for member_name, member in shape["members"].items():
            target = member["shape"]
            if (shape_name, member_name) in members:
                member["locationName"] = members[(shape_name, member_name)]
                member["flattened"] = True
            elif target in items:
                member["locationName"] = items[target]
            elif target in maps:
                member["locationName"] = maps[target][0]
    for op in out["operations"].values():
        if "output" in op:
            op["output"] = {**op["output"], "resultWrapper": f"{op['name']}Result"}
    return out
