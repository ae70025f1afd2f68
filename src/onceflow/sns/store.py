"""SNS SQL: topics, subscriptions, FIFO deduplication ids and the deliveries still to make
(Lambda and HTTP endpoints are called by the delivery thread; a row outlives a crash, so a
delivery that was due is made after a restart - at least once, as SNS delivers)."""

from __future__ import annotations

MIGRATIONS = [
    (
        "sns-0001",
        """
        CREATE TABLE sns_topics (
            arn TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            fifo INTEGER NOT NULL,
            attributes TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '{}',
            created INTEGER NOT NULL
        );
        CREATE TABLE sns_subscriptions (
            arn TEXT PRIMARY KEY,
            topic_arn TEXT NOT NULL,
            account TEXT NOT NULL,
            protocol TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            attributes TEXT NOT NULL,
            confirmed INTEGER NOT NULL,
            token TEXT NOT NULL,
            created INTEGER NOT NULL
        );
        CREATE INDEX sns_subscriptions_by_topic ON sns_subscriptions (topic_arn);
        CREATE TABLE sns_dedup (
            topic_arn TEXT NOT NULL,
            dedup_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            sequence TEXT,
            expires_ms INTEGER NOT NULL,
            PRIMARY KEY (topic_arn, dedup_id)
        );
        CREATE TABLE sns_deliveries (
            id INTEGER PRIMARY KEY,
            subscription_arn TEXT NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            due_ms INTEGER NOT NULL
        );
        CREATE INDEX sns_deliveries_due ON sns_deliveries (due_ms);
        """,
    ),
    (
        "sns-0002",
        """
        CREATE TABLE sns_platform_apps (
            arn TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            platform TEXT NOT NULL,
            attributes TEXT NOT NULL
        );
        CREATE TABLE sns_endpoints (
            arn TEXT PRIMARY KEY,
            app_arn TEXT NOT NULL,
            token TEXT NOT NULL,
            attributes TEXT NOT NULL
        );
        CREATE INDEX sns_endpoints_by_app ON sns_endpoints (app_arn, token);
        CREATE TABLE sns_sms_settings (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            attributes TEXT NOT NULL,
            PRIMARY KEY (account, region)
        );
        """,
    ),
    (
        "sns-0003",
        """
        CREATE TABLE sns_data_protection (
            topic_arn TEXT PRIMARY KEY,
            policy TEXT NOT NULL
        );
        CREATE TABLE sns_sandbox_numbers (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            number TEXT NOT NULL,
            status TEXT NOT NULL,
            otp TEXT NOT NULL,
            language TEXT NOT NULL,
            created_ms INTEGER NOT NULL,
            attempted_ms INTEGER,
            PRIMARY KEY (account, region, number)
        );
        """,
    ),
]
