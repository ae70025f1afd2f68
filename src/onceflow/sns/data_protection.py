"""A topic's message data protection policy (Get/PutDataProtectionPolicy, CreateTopic's
DataProtectionPolicy): one JSON document per topic, kept beside the topic and deleted with it.

onceflow stores the document and hands it back; it does not audit, mask or deny message data by it
(AWS no longer offers the feature to new customers; the stored policy is what a deployment to an
account that has it would carry)."""

from __future__ import annotations

import json
import sqlite3

from onceflow.sns.errors import invalid
from onceflow.sns.topics import Topics
from onceflow.store.db import Database

MAX_POLICY_CHARS = 30_720  # "Length Constraints: Maximum length of 30,720" (CreateTopic, PutDataProtectionPolicy)


def check_policy(text: str) -> None:
    """The document must be JSON (the API reference: "must be in JSON string format"), an object as
    AWS's examples are. UNCONFIRMED wording, shaped as AWS words an unparsable topic Policy."""
    if len(text) > MAX_POLICY_CHARS:
        raise invalid(f"DataProtectionPolicy Reason: must be at most {MAX_POLICY_CHARS} characters long")
    try:
        doc = json.loads(text)
    except ValueError:
        raise invalid("DataProtectionPolicy: failed to parse JSON.") from None
    if not isinstance(doc, dict):
        raise invalid("DataProtectionPolicy: failed to parse JSON.")


class DataProtection:
    def __init__(self, db: Database, topics: Topics) -> None:
        self.db = db
        self.topics = topics

    def get(self, topic_arn: str) -> str | None:
        self.topics.get(topic_arn)  # NotFound for a topic that does not exist
        row = self.db.query_one("SELECT policy FROM sns_data_protection WHERE topic_arn=?", (topic_arn,))
        return None if row is None else str(row[0])

    def put(self, topic_arn: str, policy: str) -> None:
        check_policy(policy)
        with self.db.transaction() as conn:
            self.topics.get(topic_arn, conn)
            self.store(conn, topic_arn, policy)

    @staticmethod
    def store(conn: sqlite3.Connection, topic_arn: str, policy: str) -> None:
        conn.execute("INSERT OR REPLACE INTO sns_data_protection VALUES (?,?)", (topic_arn, policy))
