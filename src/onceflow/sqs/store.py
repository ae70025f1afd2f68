"""SQS SQL: queues, their messages (every state change a row update, so a message survives
kill -9 as soon as the call that made it answered), FIFO deduplication ids and message move tasks.

A message is visible when `visible_ms <= now`; in flight when it was received (`receive_count >
0`) and is not visible yet; delayed when never received and not visible yet. `token` is the
receipt token of its latest receive: only a handle carrying it deletes the message.
"""

from __future__ import annotations

MIGRATIONS = [
    (
        "sqs-0001",
        """
        CREATE TABLE sqs_queues (
            id INTEGER PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            fifo INTEGER NOT NULL,
            attributes TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '{}',
            created INTEGER NOT NULL,
            modified INTEGER NOT NULL,
            purged_ms INTEGER NOT NULL DEFAULT 0,
            UNIQUE (account, region, name)
        );
        CREATE TABLE sqs_deleted (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            deleted_ms INTEGER NOT NULL,
            PRIMARY KEY (account, region, name)
        );
        CREATE TABLE sqs_messages (
            id INTEGER PRIMARY KEY,
            queue_id INTEGER NOT NULL,
            message_id TEXT NOT NULL,
            body TEXT NOT NULL,
            attributes TEXT,
            md5_body TEXT NOT NULL,
            md5_attributes TEXT,
            system TEXT,
            sender TEXT NOT NULL,
            sent_ms INTEGER NOT NULL,
            visible_ms INTEGER NOT NULL,
            receive_count INTEGER NOT NULL DEFAULT 0,
            first_receive_ms INTEGER,
            token TEXT,
            group_id TEXT,
            dedup_id TEXT,
            sequence TEXT,
            dlq_source TEXT
        );
        CREATE INDEX sqs_messages_visible ON sqs_messages (queue_id, visible_ms);
        CREATE TABLE sqs_dedup (
            queue_id INTEGER NOT NULL,
            dedup_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            sequence TEXT,
            expires_ms INTEGER NOT NULL,
            PRIMARY KEY (queue_id, dedup_id)
        );
        CREATE TABLE sqs_move_tasks (
            handle TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            source_arn TEXT NOT NULL,
            destination_arn TEXT,
            rate INTEGER,
            status TEXT NOT NULL,
            moved INTEGER NOT NULL,
            to_move INTEGER NOT NULL,
            started_ms INTEGER NOT NULL
        );
        """,
    ),
]
