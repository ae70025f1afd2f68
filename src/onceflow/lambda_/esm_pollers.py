"""The pollers of enabled event source mappings: threads that read a queue or a stream and invoke
the mapping's function with batches.

SQS pollers wait in SQS's own long poll (woken by a send, or by the mapping changing); a failed
batch is left in the queue, where it becomes visible again after the visibility timeout and the
queue's redrive policy decides when it goes to a dead-letter queue. A stream poller reads after
the position stored in its row and checkpoints there after each batch (a restarted server resumes
from it); on an idle stream it waits for the stream's next record (the write that captures it wakes
the poller), not polling, until an open tumbling window ends."""

from __future__ import annotations

import json
import logging
import math
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.lambda_ import esm_windows
from onceflow.lambda_.destinations import role_principal
from onceflow.lambda_.esm_events import (
    compile_filters,
    failed_items,
    passes,
    sqs_filter_view,
    sqs_record,
    stream_record,
)
from onceflow.lambda_.mappings import MappingStore
from onceflow.stack import Stack

log = logging.getLogger(__name__)

STREAM_RECHECK_S = 60.0  # an idle stream poller looks again this often even unwoken (a safety net only)
MISSING_SOURCE_RETRY_S = 5.0
MAX_BACKOFF_S = 5.0
DEFAULT_SQS_POLLERS = 2
OK = "OK"
FAILED = "PROBLEM: Function call failed"


class Pollers:
    def __init__(self, stack: Stack, store: MappingStore, invoker: Any) -> None:
        self.stack = stack
        self.store = store
        self.invoker = invoker
        self._lock = threading.Lock()
        self._running: dict[str, _Poller] = {}
        self._closed = False

    def start_all(self) -> None:
        for row in self.store.all_enabled():
            self.sync(row["uuid"])

    def sync(self, key: str) -> None:
        """Make the pollers of mapping `key` follow its row: stopped, restarted with a new
        configuration, or started."""
        with self._lock:
            old = self._running.pop(key, None)
            if old is not None:
                old.stop()
            row = self.store.by_uuid(key)
            if self._closed or row is None or not row["enabled"]:
                return
            poller = (SqsPoller if row["kind"] == "sqs" else StreamPoller)(self, row, old)
            self._running[key] = poller
        poller.start()

    def stop_all(self) -> None:
        with self._lock:
            running, self._running = list(self._running.values()), {}
        for p in running:
            p.stop()

    def close(self) -> None:
        self._closed = True
        self.stop_all()

    # ------------------------------------------------------------------ shared by pollers
    def invoke(self, row: dict[str, Any], event: dict[str, Any]) -> tuple[bool, bytes, dict[str, Any]]:
        """(succeeded, the function's answer, Invoke's response); a throttle or a missing function fails too."""
        try:
            out = self.invoker.invoke(row["account"], row["region"], row["function_arn"],
                                      json.dumps(event, separators=(",", ":")))
        except ServiceError as exc:
            return False, b"", {"StatusCode": exc.status, "FunctionError": exc.code}
        payload = out.get("Payload") or b""
        return "FunctionError" not in out, bytes(payload), out


class _Poller:
    def __init__(self, owner: Pollers, row: dict[str, Any], previous: _Poller | None) -> None:
        self.owner = owner
        self.row = row
        self.previous = previous  # still finishing a batch: it must checkpoint before we read
        self.config = row["config"]
        self.filters = compile_filters(self.config.get("FilterCriteria"))
        self.reports_items = "ReportBatchItemFailures" in (self.config.get("FunctionResponseTypes") or [])
        self.stopped = threading.Event()
        self.threads: list[threading.Thread] = []

    def count(self) -> int:
        return 1

    def start(self) -> None:
        for i in range(self.count()):
            t = threading.Thread(target=self._main, name=f"esm-{self.row['uuid'][:8]}-{i}", daemon=True)
            self.threads.append(t)
            t.start()

    def stop(self) -> None:
        self.stopped.set()

    def _main(self) -> None:
        if self.previous is not None:
            for t in self.previous.threads:
                t.join()
            self.previous = None
            current = self.owner.store.by_uuid(self.row["uuid"])
            if current is None:
                return
            self.row["position"] = current["position"]
        while not self.stopped.is_set():
            try:
                self.run_once()
            except Exception:  # a poller must outlive any one bad batch; the row's result tells the user
                if self.stopped.is_set():
                    return
                log.exception("event source mapping %s", self.row["uuid"])
                self.stopped.wait(MISSING_SOURCE_RETRY_S)

    def run_once(self) -> None:
        raise NotImplementedError


class SqsPoller(_Poller):
    def count(self) -> int:
        limit = (self.config.get("ScalingConfig") or {}).get("MaximumConcurrency") or DEFAULT_SQS_POLLERS
        return max(1, min(limit, self.owner.stack.settings.lambda_max_workers))

    def __init__(self, owner: Pollers, row: dict[str, Any], previous: _Poller | None) -> None:
        super().__init__(owner, row, previous)
        self._watch_lock = threading.Lock()
        self._watches: set[Any] = set()  # our threads' long polls, ended at once by stop()

    def stop(self) -> None:
        super().stop()
        with self._watch_lock:
            watches = list(self._watches)
        for w in watches:
            w.fire()

    def run_once(self) -> None:
        sqs = self.owner.stack.ports.queues()
        q = sqs.queues.by_arn(self.row["source_arn"])
        if q is None:  # deleted since: wait for it to come back, as Lambda keeps the mapping
            self.stopped.wait(MISSING_SOURCE_RETRY_S)
            return
        messages = self._collect(sqs, q)
        if not messages:
            return
        if self.stopped.is_set():  # changed meanwhile: hand the messages back at once
            for m in messages:
                _quietly(sqs.messages.change_visibility, q, m["ReceiptHandle"], 0)
            return
        records = [sqs_record(m, q.arn, q.region) for m in messages]
        chosen = [r for r in records if passes(self.filters, sqs_filter_view(r))]
        done = [r for r in records if r not in chosen]  # filtered out: Lambda deletes them
        if chosen:
            ok, payload, _ = self.owner.invoke(self.row, {"Records": chosen})
            failed = failed_items(payload) if ok and self.reports_items else []
            ids = {r["messageId"] for r in chosen}
            if ok and failed is not None and set(failed) <= ids:  # an unknown id fails the whole batch
                done += [r for r in chosen if r["messageId"] not in set(failed)]
            self.owner.store.progress(self.row["uuid"], None, OK if ok else FAILED)
        for r in done:
            _quietly(sqs.messages.delete, q, r["receiptHandle"])

    def _collect(self, sqs: Any, q: Any) -> list[dict[str, Any]]:
        """A batch: up to BatchSize messages, gathered for up to MaximumBatchingWindowInSeconds."""
        size = self.config["BatchSize"]
        window = self.config.get("MaximumBatchingWindowInSeconds") or 0
        got = self._receive(sqs, q, min(size, 10), 20)
        deadline = time.monotonic() + window
        while got and len(got) < size and not self.stopped.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            got += self._receive(sqs, q, min(size - len(got), 10), min(20, math.ceil(left)))
        return got

    def _receive(self, sqs: Any, q: Any, n: int, wait: int) -> list[dict[str, Any]]:
        """SQS's long poll, as ReceiveMessage runs it (woken by a send, or when a message's delay or
        visibility runs out), that also ends the moment this poller is stopped."""
        deadline = time.monotonic() + wait
        visibility = q.int_attribute("VisibilityTimeout")
        while not self.stopped.is_set():
            watch = sqs.waiters.watch(q.id)  # before looking, so a send in between is not missed
            with self._watch_lock:
                self._watches.add(watch)
            try:
                found, ready_in = sqs.messages.receive(q, n, visibility, ["All"], ["All"])
                left = deadline - time.monotonic()
                if found or left <= 0 or sqs.waiters.stopping:
                    return list(found)
                if self.stopped.is_set():
                    return []
                watch.wait_blocking(min(left, ready_in) if ready_in is not None else left)
            finally:
                sqs.waiters.forget(q.id, watch)
                with self._watch_lock:
                    self._watches.discard(watch)
        return []


class StreamPoller(_Poller):
    def __init__(self, owner: Pollers, row: dict[str, Any], previous: _Poller | None) -> None:
        super().__init__(owner, row, previous)
        self.tumbling = int(self.config.get("TumblingWindowInSeconds") or 0)
        self.window: tuple[int, int] | None = None  # the open tumbling window (start, end), epoch seconds
        self.state: Any = {}  # what the function returned as "state" within it (kept with the checkpoint)
        self.shard = ""
        self._resumed = False
        self._watch: Any = None  # the wait for the stream's next record, ended at once by stop()

    def stop(self) -> None:
        super().stop()
        if (watch := self._watch) is not None:
            watch.fire()

    def _window_of(self, record: dict[str, Any]) -> tuple[int, int]:
        start = int(record["dynamodb"]["ApproximateCreationDateTime"]) // self.tumbling * self.tumbling
        return start, start + self.tumbling

    def _envelope(self, batch: list[dict[str, Any]], final: bool = False) -> dict[str, Any]:
        if not self.tumbling or self.window is None:
            return {"Records": batch}
        if not self.shard:
            self.shard = self._shard_id()
        return {"Records": batch, "window": {"start": _iso(self.window[0]), "end": _iso(self.window[1])},
                "state": self.state, "shardId": self.shard, "eventSourceARN": self.row["source_arn"],
                "isFinalInvokeForWindow": final, "isWindowTerminatedEarly": False}

    def _close_window(self) -> None:
        """The window's final invocation: no records, the state it reached."""
        self.owner.invoke(self.row, self._envelope([], final=True))
        self.window, self.state = None, {}
        with self.owner.stack.db.transaction() as conn:
            esm_windows.save(conn, self.row["uuid"], None, None)

    def _checkpoint(self, position: str, result: str) -> None:
        """The position after a batch, and the window open after it, in one transaction."""
        with self.owner.stack.db.transaction() as conn:
            if self.tumbling:
                esm_windows.save(conn, self.row["uuid"], self.window, self.state)
            self.owner.store.progress(self.row["uuid"], position, result)

    def run_once(self) -> None:
        streams = self.owner.stack.ports.streams()
        row, size = self.row, self.config["BatchSize"]
        if self.tumbling and not self._resumed:  # a window a previous poller (or server) left open
            self._resumed = True
            self.window, self.state = esm_windows.load(self.owner.stack.db, row["uuid"]) or (None, {})
        read = lambda: streams.records_after(row["account"], row["region"], row["source_arn"], row["position"], size)  # noqa: E731
        key, self._watch = streams.watch(row["account"], row["region"], row["source_arn"])  # before reading
        try:
            if self.stopped.is_set():
                return
            records = read()
            window = self.config.get("MaximumBatchingWindowInSeconds") or 0
            if records and len(records) < size and window:
                self.stopped.wait(window)
                records = read()
            if not records:
                if self.window is not None and time.time() >= self.window[1]:
                    self._close_window()
                wait = STREAM_RECHECK_S if self.window is None else max(0.0, self.window[1] - time.time())
                self._watch.wait_blocking(wait)
                with self.owner.stack.db.writers_lock():
                    pass  # the record's write fired the watch from inside its transaction: let it commit
                return
        finally:
            streams.waiters.forget(key, self._watch)
        batch = [stream_record(r, row["source_arn"]) for r in records]
        if self.tumbling:  # one window per invocation: a record of a later one closes the open one first
            first = self._window_of(batch[0])
            if self.window is not None and self.window != first:
                self._close_window()
            self.window = first
            batch = [r for r in batch if self._window_of(r) == first]
        chosen = [r for r in batch if passes(self.filters, r)]
        result = self._handle(chosen, 0) if chosen else None
        if result is None and self.stopped.is_set():
            return  # stopped mid-batch: not checkpointed, the next poller reads it again
        row["position"] = batch[-1]["dynamodb"]["SequenceNumber"]
        self._checkpoint(row["position"], result or OK)

    def _handle(self, batch: list[dict[str, Any]], tries: int) -> str | None:
        """Invoke with `batch` until it succeeds, is split, or runs out of retries or age; the result
        to report, or None when stopped."""
        retries, max_age = self.config.get("MaximumRetryAttempts", -1), self.config.get("MaximumRecordAgeInSeconds", -1)
        while not self.stopped.is_set():
            if max_age not in (-1, None):  # records older than that are discarded (in order: the oldest first)
                young = [r for r in batch if time.time() - r["dynamodb"]["ApproximateCreationDateTime"] <= max_age]
                if len(young) < len(batch):
                    self._on_failure(batch[:len(batch) - len(young)], tries, "RecordAgeExceeded", {})
                    if not young:
                        return FAILED
                    batch = young
            ok, payload, response = self.owner.invoke(self.row, self._envelope(batch))
            tries += 1
            if ok and self.tumbling:
                self.state = _state(payload, self.state)
            if ok:
                failed = failed_items(payload) if self.reports_items else []
                if failed == []:
                    return OK
                seqs = [r["dynamodb"]["SequenceNumber"] for r in batch]
                if failed is not None and set(failed) <= set(seqs):  # else the whole batch failed
                    batch = batch[seqs.index(min(failed)):]  # retried from the first failed record on
            if self.config.get("BisectBatchOnFunctionError") and len(batch) > 1:
                # each half is retried on its own; a split does not count toward the retry quota
                half = len(batch) // 2
                first_half = self._handle(batch[:half], tries - 1)
                if first_half is None:
                    return None
                rest = self._handle(batch[half:], tries - 1)
                return None if rest is None else (FAILED if FAILED in (first_half, rest) else OK)
            if retries not in (-1, None) and tries > retries:
                self._on_failure(batch, tries, "RetryAttemptsExhausted", response)
                return FAILED
            scale = self.owner.stack.settings.time_scale or 1.0
            self.stopped.wait(min(0.2 * 2 ** tries, MAX_BACKOFF_S) / scale)
        return None

    def _on_failure(self, batch: list[dict[str, Any]], tries: int, condition: str, response: dict[str, Any]) -> None:
        """The batch's description to the OnFailure destination (the records stay in the stream)."""
        dest = ((self.config.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
        if not dest:
            return
        row = self.row
        first, last = batch[0]["dynamodb"], batch[-1]["dynamodb"]
        record: dict[str, Any] = {
            "requestContext": {"requestId": str(uuid.uuid4()), "functionArn": row["function_arn"],
                               "condition": condition, "approximateInvokeCount": tries},
            "responseContext": {"statusCode": response.get("StatusCode", 200),
                                "executedVersion": response.get("ExecutedVersion", "$LATEST"),
                                # null when the function answered, reporting items failed (recorded:
                                # test_dynamodb_report_batch_item_failures, 2025-10)
                                "functionError": response.get("FunctionError",
                                                              None if "StatusCode" in response else "Unhandled")},
            "version": "1.0",
            "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
            "DDBStreamBatchInfo": {
                "shardId": self._shard_id(), "startSequenceNumber": first["SequenceNumber"],
                "endSequenceNumber": last["SequenceNumber"],
                "approximateArrivalOfFirstRecord": _iso(first["ApproximateCreationDateTime"]),
                "approximateArrivalOfLastRecord": _iso(last["ApproximateCreationDateTime"]),
                "batchSize": len(batch), "streamArn": row["source_arn"]},
        }
        stack = self.owner.stack
        if ":s3:::" in dest:  # the whole invocation record too (recorded: test_dynamodb_event_source_mapping_
            # with_s3_on_failure_destination, 2025-01: "payload" beside the metadata)
            self._to_bucket(dest, {**record, "payload": self._envelope(batch)}, record)
            return
        body = json.dumps(record)
        try:
            role = self.owner.invoker.service.resolve(row["account"], row["region"], row["function_arn"], None,
                                                      invoking=False).config.get("Role")
            if ":sqs:" in dest:  # sent as the execution role: the message names its session as the sender
                function = row["function_arn"].split(":")[6]
                stack.ports.queues().send_to_arn(dest, body, principal=role_principal(role, function))
            else:
                internal.call(stack, Principal(row["account"], "assumed-role", role_arn=role), "sns", "Publish",
                              {"TopicArn": dest, "Message": body}, region=row["region"])
        except Exception:  # the destination is best effort, as in Lambda: the batch is skipped either way
            log.warning("event source mapping %s: on-failure destination %s refused the record", row["uuid"], dest)

    def _to_bucket(self, dest: str, document: dict[str, Any], record: dict[str, Any]) -> None:
        """Write the failed batch's record as an object of the destination bucket, under
        aws/lambda/<mapping UUID>/<shard id>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<UUID> (the layout the Lambda
        guide gives for S3 destinations; UNCONFIRMED against a recording). Written in the mapping's
        account without the execution role's s3:PutObject being weighed (UNCONFIRMED how AWS fails it)."""
        now = datetime.now(UTC)
        shard = record["DDBStreamBatchInfo"]["shardId"]
        key = f"aws/lambda/{self.row['uuid']}/{shard}/{now:%Y/%m/%d}/{now:%Y-%m-%dT%H.%M.%S}-{uuid.uuid4()}"
        try:
            self.owner.stack.ports.objects().put_object(self.row["account"], dest.split(":::", 1)[1], key,
                                                        json.dumps(document).encode())  # fmt: skip
        except Exception:  # best effort, as for the other destinations
            log.warning("event source mapping %s: on-failure destination %s refused the record", self.row["uuid"],
                        dest)  # fmt: skip

    def _shard_id(self) -> str:
        try:
            desc = self.owner.stack.ports.streams().describe_stream(
                self.row["account"], self.row["region"], self.row["source_arn"])
            return desc["StreamDescription"]["Shards"][0]["ShardId"]
        except Exception:
            return ""


def _state(payload: bytes, before: Any) -> Any:
    """The "state" a function returned within a tumbling window (kept as it was when it returned none)."""
    try:
        answer = json.loads(payload or b"null")
    except ValueError:
        return before
    return answer["state"] if isinstance(answer, dict) and isinstance(answer.get("state"), dict) else before


def _iso(epoch: float) -> str:
    """A record's arrival in DDBStreamBatchInfo: seconds, no fraction (recorded: test_dynamodb_event_source_
    mapping_with_on_failure_destination_config, 2025-10, "2022-07-13T13:48:01Z"; the timestamp has .000)."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _quietly(fn: Any, *args: Any) -> None:
    """Deleting or releasing a message whose handle went stale (its visibility ran out) is not an error
    for a poller: the message is simply received again."""
    try:
        fn(*args)
    except ServiceError:
        pass
