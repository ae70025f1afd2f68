"""The rules SNS holds phone numbers and SMS messages to: E.164 numbers for Publish(PhoneNumber),
the opt-out calls and sms subscriptions, and the 1,600-character total an SMS publish may carry."""

from __future__ import annotations

import re

from onceflow.errors import ServiceError
from onceflow.sns.errors import invalid

E164 = re.compile(r"^\+?[1-9]\d{1,14}$")
_SEPARATORS = re.compile(r"[./-]")
MAX_SMS_CHARS = 1600  # AWS's API reference: "The total size limit for a single SMS Publish action is 1,600 characters."


def check_publish_number(number: str) -> None:
    if not E164.match(number):  # AWS's text (seen in clients' tests against AWS)
        raise invalid(f"PhoneNumber Reason: {number} is not valid to publish to")


def check_listed_number(number: str) -> None:
    """CheckIfPhoneNumberIsOptedOut, OptInPhoneNumber."""
    if not E164.match(number):  # UNCONFIRMED wording; AWS refuses a number not in E.164 form
        raise invalid("PhoneNumber Reason: input incorrectly formatted")


def check_sms_message(message: str) -> None:
    if len(message) > MAX_SMS_CHARS:  # UNCONFIRMED wording
        raise invalid(f"Message Reason: An SMS message must be less than {MAX_SMS_CHARS} characters long")


def check_sms_endpoint(endpoint: str) -> None:
    """An sms subscription's endpoint: a phone number, single '.', '/' or '-' allowed between digits."""
    bad = (not endpoint or re.search(r"[./-]{2,}", endpoint) is not None or endpoint[0] in "./-"
           or endpoint[-1] in "./-" or not E164.match(_SEPARATORS.sub("", endpoint)))
    if bad:  # UNCONFIRMED wording (no "Invalid parameter:" prefix, as moto and LocalStack word it)
        raise ServiceError("InvalidParameter", f"Invalid SMS endpoint: {endpoint}")
