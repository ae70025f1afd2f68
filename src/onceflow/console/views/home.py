"""The overview: how many of each resource the account holds in this region."""

from __future__ import annotations

from onceflow.console.app import Response, View

# (title, page, service, operation, items member, input token, output token)
SECTIONS = [
    ("State machines", "/states", "stepfunctions", "ListStateMachines", "stateMachines", "nextToken", "nextToken"),
    ("DynamoDB tables", "/dynamodb", "dynamodb", "ListTables", "TableNames", "ExclusiveStartTableName",
     "LastEvaluatedTableName"),
    ("Lambda functions", "/lambda", "lambda", "ListFunctions", "Functions", "Marker", "NextMarker"),
    ("IAM roles", "/iam", "iam", "ListRoles", "Roles", "Marker", "Marker"),
    ("Log groups", "/logs", "logs", "DescribeLogGroups", "logGroups", "nextToken", "nextToken"),
]


def overview(v: View) -> Response:
    cards = []
    for title, path, service, op, items, token, out in SECTIONS:
        count = v.optional(lambda s=service, o=op, i=items, t=token, ot=out: len(
            v.aws.all(s, o, {}, i, token=t, out_token=ot)))
        cards.append({"title": title, "path": path, "count": count})
    return v.page("home.html", title="Overview", cards=cards)
