"""The SMS sandbox, as AWS keeps it for an account that has not left it: destination numbers added
with CreateSMSSandboxPhoneNumber, verified with the one-time password (OTP) sent to them, listed and
deleted (the SNS developer guide, "Using the Amazon SNS SMS sandbox": at most 10 destination numbers;
a number is deleted only 24 hours after its verification or its last verification attempt).

onceflow sends no SMS, so the OTP goes where a developer on this machine can read it: the server log
(a WARNING of `onceflow.sns`, shown at the default log level). VerifySMSSandboxPhoneNumber takes that
OTP and no other: there is no fixed code. An onceflow account never leaves the sandbox (AWS moves an
account out on a support case), and has no dedicated origination numbers."""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import time
from typing import Any

from onceflow import pages
from onceflow.errors import ServiceError
from onceflow.sns.errors import invalid, resource_not_found, user_error, verification_failed
from onceflow.store.db import Database

log = logging.getLogger("onceflow.sns")

MAX_NUMBERS = 10
DELETE_AFTER_MS = 24 * 60 * 60 * 1000
_E164 = re.compile(r"^\+[1-9]\d{7,14}$")  # the model's PhoneNumberString wants '+' and 8 or more digits


def _refused_token() -> ServiceError:
    return invalid("NextToken")  # UNCONFIRMED wording


def _check_number(number: str) -> None:
    if not _E164.match(number):  # UNCONFIRMED wording, as SNS words a number it cannot use
        raise invalid(f"PhoneNumber Reason: {number} is not valid to publish to")


def _missing(number: str) -> ServiceError:
    return resource_not_found(f"Phone number {number} does not exist in the SMS sandbox")  # UNCONFIRMED


class SmsSandbox:
    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def status() -> dict[str, Any]:
        return {"IsInSandbox": True}

    def create(self, account: str, region: str, number: str, language: str) -> None:
        _check_number(number)
        otp = f"{secrets.randbelow(10**6):06d}"
        with self.db.transaction() as conn:
            row = conn.execute("SELECT status FROM sns_sandbox_numbers WHERE account=? AND region=? AND number=?",
                               (account, region, number)).fetchone()
            if row is not None and row[0] == "Verified":
                return  # already verified: nothing to send (UNCONFIRMED)
            if row is not None:  # a pending number asked again gets a new OTP, as a resend does
                conn.execute("UPDATE sns_sandbox_numbers SET otp=?, language=? WHERE account=? AND region=? AND "
                             "number=?", (otp, language, account, region, number))
            else:
                count = conn.execute("SELECT COUNT(*) FROM sns_sandbox_numbers WHERE account=? AND region=?",
                                     (account, region)).fetchone()[0]
                if count >= MAX_NUMBERS:  # UNCONFIRMED wording
                    raise user_error(f"You can have at most {MAX_NUMBERS} destination phone numbers in the SMS "
                                     "sandbox")
                conn.execute("INSERT INTO sns_sandbox_numbers VALUES (?,?,?,?,?,?,?,?)",
                             (account, region, number, "Pending", otp, language, int(time.time() * 1000), None))
        log.warning("sns: the SMS sandbox one-time password for %s (account %s, %s) is %s; pass it to "
                    "VerifySMSSandboxPhoneNumber", number, account, region, otp)

    def verify(self, account: str, region: str, number: str, otp: str) -> None:
        now = int(time.time() * 1000)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT status, otp FROM sns_sandbox_numbers WHERE account=? AND region=? AND "
                               "number=?", (account, region, number)).fetchone()
            if row is None:
                raise _missing(number)
            if row[0] == "Verified":
                return
            matched = hmac.compare_digest(str(row[1]), otp)
            conn.execute("UPDATE sns_sandbox_numbers SET attempted_ms=?, status=? WHERE account=? AND region=? AND "
                         "number=?", (now, "Verified" if matched else "Pending", account, region, number))
        if not matched:  # the attempt is recorded (it starts the 24 hours before a delete), the status is not
            raise verification_failed("Invalid one-time password", "Failed")  # UNCONFIRMED wording and Status

    def delete(self, account: str, region: str, number: str) -> None:
        with self.db.transaction() as conn:
            row = conn.execute("SELECT attempted_ms FROM sns_sandbox_numbers WHERE account=? AND region=? AND "
                               "number=?", (account, region, number)).fetchone()
            if row is None:
                raise _missing(number)
            if row[0] is not None and int(time.time() * 1000) - int(row[0]) < DELETE_AFTER_MS:
                raise user_error("A destination phone number can be deleted 24 hours after its verification or "
                                 "last verification attempt")  # UNCONFIRMED wording
            conn.execute("DELETE FROM sns_sandbox_numbers WHERE account=? AND region=? AND number=?",
                         (account, region, number))

    def list(self, account: str, region: str, token: str | None, limit: int | None) -> dict[str, Any]:
        start = pages.offset_of(token, _refused_token)
        size = limit or 100
        rows = self.db.query("SELECT number, status FROM sns_sandbox_numbers WHERE account=? AND region=? "
                             "ORDER BY created_ms, number LIMIT ? OFFSET ?", (account, region, size + 1, start))
        out: dict[str, Any] = {"PhoneNumbers": [{"PhoneNumber": r[0], "Status": r[1]} for r in rows[:size]]}
        if len(rows) > size:
            out["NextToken"] = pages.offset_token(start + size)
        return out

    @staticmethod
    def origination_numbers(token: str | None) -> dict[str, Any]:
        if token:  # onceflow issued none: there are no pages to go on to
            raise _refused_token()
        return {"PhoneNumbers": []}
