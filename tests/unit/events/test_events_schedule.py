"""Schedule expressions: rate(), AWS's six-field cron() and at(), and when they fire next."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from onceflow.events.schedule import ScheduleError, parse


def ts(*args: int, tz: object = UTC) -> float:
    return datetime(*args, tzinfo=tz).timestamp()  # type: ignore[arg-type]


def nxt(expression: str, after: float, tz: str | None = None) -> datetime | None:
    found = parse(expression, tz, allow_at=True).next_after(after)
    return None if found is None else datetime.fromtimestamp(found, UTC)


@pytest.mark.parametrize(("expression", "seconds"), [
    ("rate(1 minute)", 60), ("rate(5 minutes)", 300), ("rate(1 hour)", 3600), ("rate(2 hours)", 7200),
    ("rate(1 day)", 86400), ("rate(7 days)", 604800),
])
def test_rates(expression: str, seconds: int) -> None:
    assert parse(expression).next_after(1000.0) == 1000.0 + seconds


@pytest.mark.parametrize("expression", [
    "rate(1 minutes)", "rate(5 minute)", "rate(0 minutes)", "rate(1 week)", "rate(-1 minute)", "rate(1minute)",
    "cron(0 12 * * * *)", "cron(0 12 * * ? )", "cron(0 12 ? * ? *)", "cron(60 12 * * ? *)", "cron(0 24 * * ? *)",
    "cron(0 12 32 * ? *)", "cron(0 12 * 13 ? *)", "cron(0 12 ? * 8 *)", "cron(0 12 * * ? 1969)", "cron(0/0 * * * ? *)",
    "every day", "at(2026-13-01T00:00:00)",
])
def test_bad_expressions(expression: str) -> None:
    with pytest.raises(ScheduleError):
        parse(expression, allow_at=True)


def test_at_is_only_for_scheduler() -> None:
    with pytest.raises(ScheduleError):
        parse("at(2030-01-01T00:00:00)")
    assert nxt("at(2030-01-01T00:00:00)", ts(2029, 6, 1)) == datetime(2030, 1, 1, tzinfo=UTC)
    assert nxt("at(2030-01-01T00:00:00)", ts(2030, 6, 1)) is None


@pytest.mark.parametrize(("expression", "after", "expected"), [
    # The examples of AWS's "cron expressions" table.
    ("cron(0 10 * * ? *)", (2026, 3, 4, 9, 0), (2026, 3, 4, 10, 0)),  # 10:00 every day
    ("cron(0 10 * * ? *)", (2026, 3, 4, 10, 0), (2026, 3, 5, 10, 0)),  # strictly after
    ("cron(15 12 * * ? *)", (2026, 3, 4, 13, 0), (2026, 3, 5, 12, 15)),
    ("cron(0 18 ? * MON-FRI *)", (2026, 3, 6, 19, 0), (2026, 3, 9, 18, 0)),  # Friday evening -> Monday
    ("cron(0 8 1 * ? *)", (2026, 3, 4, 0, 0), (2026, 4, 1, 8, 0)),
    ("cron(0/15 * * * ? *)", (2026, 3, 4, 9, 7), (2026, 3, 4, 9, 15)),
    ("cron(0/10 * ? * MON-FRI *)", (2026, 3, 7, 12, 0), (2026, 3, 9, 0, 0)),  # Saturday -> Monday
    ("cron(0/5 8-17 ? * MON-FRI *)", (2026, 3, 4, 17, 56), (2026, 3, 5, 8, 0)),
    ("cron(0 9 ? * 2#1 *)", (2026, 3, 4, 0, 0), (2026, 4, 6, 9, 0)),  # first Monday of the month
    # Special forms.
    ("cron(0 0 L * ? *)", (2026, 2, 3, 0, 0), (2026, 2, 28, 0, 0)),
    ("cron(0 0 L * ? *)", (2028, 2, 3, 0, 0), (2028, 2, 29, 0, 0)),
    ("cron(0 0 LW * ? *)", (2026, 5, 1, 0, 0), (2026, 5, 29, 0, 0)),  # May 31 2026 is a Sunday
    ("cron(0 0 15W * ? *)", (2026, 8, 1, 0, 0), (2026, 8, 14, 0, 0)),  # Aug 15 2026 is a Saturday
    ("cron(0 0 1W * ? *)", (2026, 7, 30, 0, 0), (2026, 8, 3, 0, 0)),  # Aug 1 2026 is a Saturday: Monday 3rd
    ("cron(0 0 ? * 6L *)", (2026, 3, 1, 0, 0), (2026, 3, 27, 0, 0)),  # the last Friday
    ("cron(0 0 ? * L *)", (2026, 3, 1, 0, 0), (2026, 3, 7, 0, 0)),  # L alone: Saturday
    ("cron(0 0 ? * FRI-MON *)", (2026, 3, 3, 0, 0), (2026, 3, 6, 0, 0)),  # wraps around the week
    ("cron(30 22-2 * * ? *)", (2026, 3, 4, 3, 0), (2026, 3, 4, 22, 30)),
    ("cron(0 12 1 JAN,JUL ? *)", (2026, 2, 1, 0, 0), (2026, 7, 1, 12, 0)),
    ("cron(0 0 1 1 ? 2030)", (2026, 2, 1, 0, 0), (2030, 1, 1, 0, 0)),
    ("cron(0 0 31 2 ? *)", (2026, 1, 1, 0, 0), None),  # February never has a 31st
    ("cron(0 0 1 1 ? 2020-2025)", (2026, 2, 1, 0, 0), None),
])
def test_cron_next_after(expression: str, after: tuple[int, ...], expected: tuple[int, ...] | None) -> None:
    assert nxt(expression, ts(*after)) == (datetime(*expected, tzinfo=UTC) if expected else None)


def test_cron_in_a_timezone_follows_its_daylight_saving() -> None:
    # 09:00 in New York is 14:00 UTC in winter and 13:00 UTC in summer.
    assert nxt("cron(0 9 * * ? *)", ts(2026, 1, 10), "America/New_York") == datetime(2026, 1, 10, 14, tzinfo=UTC)
    assert nxt("cron(0 9 * * ? *)", ts(2026, 7, 10), "America/New_York") == datetime(2026, 7, 10, 13, tzinfo=UTC)
    assert nxt("at(2026-07-10T09:00:00)", ts(2026, 1, 1), "Europe/Paris") == datetime(2026, 7, 10, 7, tzinfo=UTC)


def test_unknown_timezone() -> None:
    with pytest.raises(ScheduleError):
        parse("rate(1 minute)", "Mars/Olympus")


def test_next_firing_keeps_the_rhythm_when_a_little_late_and_drops_what_a_long_pause_missed() -> None:
    from onceflow.events.schedule import next_firing

    every_minute = parse("rate(1 minute)")
    # Scale 60: one nominal minute is a real second. On time and 5 s late keep the sequence.
    assert next_firing(every_minute, 6000.0, 100.0, 100.0, 60.0) == (6060.0, 101.0)
    assert next_firing(every_minute, 6000.0, 100.0, 105.0, 60.0) == (6060.0, 101.0)
    # Two hours late (the server was off): the schedule's clock moved on 7200 nominal hours' worth;
    # the next firing is the first one after where that clock stands now, in the future.
    nominal, real = next_firing(every_minute, 6000.0, 100.0, 7300.0, 60.0)
    assert nominal is not None and real is not None
    assert real > 7300.0 and nominal == 6000.0 + (real - 100.0) * 60.0
    assert next_firing(parse("at(2030-01-01T00:00:00)", allow_at=True), 1893456000.0, 100.0, 100.0, 1.0) == (
        None, None)
