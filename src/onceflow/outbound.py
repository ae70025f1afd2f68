"""What marks the HTTP requests onceflow itself sends (SNS deliveries, EventBridge API destinations,
Step Functions HTTP tasks) so that its front door knows them (wire/guard.py)."""

from __future__ import annotations

import urllib.request

# Every request onceflow itself sends (SNS HTTP deliveries, API destinations, HTTP tasks) carries
# this header, set after any the user configured: pointed at onceflow's own endpoints, the server
# would otherwise be a loopback client with a loopback Host, and reset or change fault rules for
# whoever may subscribe a URL (SSRF). `mark_delivery` sets it.
DELIVERY_HEADER = "x-onceflow-delivery"


def mark_delivery(request: urllib.request.Request) -> urllib.request.Request:
    """An outbound request of onceflow's, marked as such (DELIVERY_HEADER), whatever headers it has."""
    request.add_header(DELIVERY_HEADER.capitalize(), "1")
    return request
