"""Schedule expressions: `rate(value unit)`, `cron(6 fields)` and (for EventBridge Scheduler)
`at(yyyy-mm-ddThh:mm:ss)`, parsed once and asked for the next time they fire.

Cron is AWS's six-field syntax: Minutes Hours Day-of-month Month Day-of-week Year, with `*`, `,`,
`-`, `/`; one of day-of-month and day-of-week must be `?`; day-of-month also takes `L` (last day),
`LW` (last weekday) and `nW` (the weekday nearest day n, within the month); day-of-week takes
1-7 or SUN-SAT (1 is Sunday), `L` (Saturday), `nL` (the month's last day n) and `n#k` (its k-th);
months take 1-12 or JAN-DEC; years run 1970-2199. Times are UTC unless a timezone is given.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_RATE = re.compile(r"^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$")
_CRON = re.compile(r"^cron\((.*)\)$")
_AT = re.compile(r"^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$")
_UNIT_S = {"minute": 60, "hour": 3600, "day": 86400}
_MONTHS = {m.upper(): i for i, m in enumerate(calendar.month_abbr) if m}
_DAYS = {d: i + 1 for i, d in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))}
MAX_YEAR = 2199


class ScheduleError(ValueError):
    """The expression is not one AWS accepts."""


def _ints(field: str, lo: int, hi: int, names: dict[str, int] | None = None) -> frozenset[int]:
    """A cron field of numbers: `*`, lists, ranges (a wrap-around one too, as FRI-MON) and steps."""
    out: set[int] = set()
    for part in field.split(","):
        step, stepped = 1, "/" in part
        if stepped:
            part, step_text = part.split("/", 1)
            if not step_text.isdigit() or int(step_text) < 1:
                raise ScheduleError(field)
            step = int(step_text)
        if part == "*":
            start, end = lo, hi
        elif "-" in part:
            a, b = part.split("-", 1)
            start, end = _value(a, lo, hi, names), _value(b, lo, hi, names)
        else:
            start = _value(part, lo, hi, names)
            end = hi if stepped else start  # 5/10: from 5 to the end, every 10
        if start <= end:
            out.update(range(start, end + 1, step))
        else:  # wraps around: FRI-MON, 22-2
            span = list(range(start, hi + 1)) + list(range(lo, end + 1))
            out.update(span[::step])
    return frozenset(out)


def _value(text: str, lo: int, hi: int, names: dict[str, int] | None) -> int:
    if names and text.upper() in names:
        return names[text.upper()]
    if not text.isdigit():
        raise ScheduleError(text)
    n = int(text)
    if not lo <= n <= hi:
        raise ScheduleError(text)
    return n


@dataclass(frozen=True)
class _DayRule:
    """Day-of-month or day-of-week, with AWS's special forms."""

    days: frozenset[int] = frozenset()  # plain days of the month, or weekdays 1-7
    last: bool = False  # L: the month's last day (dom) / Saturday (dow)
    last_weekday: bool = False  # LW (dom)
    nearest_weekday: int = 0  # nW (dom)
    nth: tuple[int, int] | None = None  # (weekday, k) for n#k (dow)
    last_of: int = 0  # nL: the month's last weekday n (dow)


def _dom(field: str) -> _DayRule:
    if field == "L":
        return _DayRule(last=True)
    if field == "LW":
        return _DayRule(last_weekday=True)
    if m := re.fullmatch(r"(\d{1,2})W", field):
        return _DayRule(nearest_weekday=_value(m.group(1), 1, 31, None))
    return _DayRule(days=_ints(field, 1, 31))


def _dow(field: str) -> _DayRule:
    if field == "L":
        return _DayRule(days=frozenset({7}))
    if m := re.fullmatch(r"(\w{1,3})#([1-5])", field):
        return _DayRule(nth=(_value(m.group(1), 1, 7, _DAYS), int(m.group(2))))
    if m := re.fullmatch(r"(\w{1,3})L", field):
        return _DayRule(last_of=_value(m.group(1), 1, 7, _DAYS))
    return _DayRule(days=_ints(field, 1, 7, _DAYS))


def _weekday(year: int, month: int, day: int) -> int:
    """1 (Sunday) .. 7 (Saturday), as cron counts."""
    return (calendar.weekday(year, month, day) + 1) % 7 + 1


def _dom_days(rule: _DayRule, year: int, month: int) -> set[int]:
    size = calendar.monthrange(year, month)[1]
    if rule.last:
        return {size}
    if rule.last_weekday or rule.nearest_weekday:
        day = size if rule.last_weekday else rule.nearest_weekday
        if day > size:
            return set()
        wd = _weekday(year, month, day)
        if wd == 7:  # Saturday: Friday, or Monday when Friday is in the month before
            day = day - 1 if day > 1 else day + 2
        elif wd == 1:  # Sunday: Monday, or Friday when Monday is in the month after
            day = day + 1 if day < size else day - 2
        return {day}
    return {d for d in rule.days if d <= size}


def _dow_days(rule: _DayRule, year: int, month: int) -> set[int]:
    size = calendar.monthrange(year, month)[1]
    weekdays = {d: _weekday(year, month, d) for d in range(1, size + 1)}
    if rule.nth is not None:
        wd, k = rule.nth
        hits = [d for d, w in weekdays.items() if w == wd]
        return {hits[k - 1]} if len(hits) >= k else set()
    if rule.last_of:
        return {max(d for d, w in weekdays.items() if w == rule.last_of)}
    return {d for d, w in weekdays.items() if w in rule.days}


@dataclass(frozen=True)
class Cron:
    minutes: frozenset[int]
    hours: frozenset[int]
    dom: _DayRule | None  # None for `?`
    months: frozenset[int]
    dow: _DayRule | None
    years: frozenset[int]

    def next_after(self, after: datetime) -> datetime | None:
        """The first firing strictly after `after` (aware, in the schedule's timezone)."""
        start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
        tz = start.tzinfo
        for year in sorted(y for y in self.years if y >= start.year):
            for month in sorted(self.months):
                if (year, month) < (start.year, start.month):
                    continue
                days = _dom_days(self.dom, year, month) if self.dom else _dow_days(self.dow, year, month) \
                    if self.dow else set()
                for day in sorted(days):
                    if (year, month, day) < (start.year, start.month, start.day):
                        continue
                    for hour in sorted(self.hours):
                        for minute in sorted(self.minutes):
                            when = datetime(year, month, day, hour, minute, tzinfo=tz)
                            if when >= start:
                                return when
        return None


@dataclass(frozen=True)
class Schedule:
    """A parsed expression. `next_after(t)` gives the next firing (epoch seconds) after t, or None."""

    expression: str
    rate_s: int = 0
    cron: Cron | None = None
    at: datetime | None = None
    tz: tzinfo = UTC

    def next_after(self, after: float) -> float | None:
        if self.rate_s:
            return after + self.rate_s
        if self.at is not None:
            when = self.at.timestamp()
            return when if when > after else None
        assert self.cron is not None
        found = self.cron.next_after(datetime.fromtimestamp(after, self.tz))
        return found.timestamp() if found is not None else None

    @property
    def one_time(self) -> bool:
        return self.at is not None


def _cron(body: str) -> Cron:
    fields = body.split()
    if len(fields) != 6:
        raise ScheduleError(body)
    minute, hour, dom, month, dow, year = fields
    if (dom == "?") == (dow == "?"):
        raise ScheduleError("one of day-of-month and day-of-week must be ?")
    return Cron(
        _ints(minute, 0, 59), _ints(hour, 0, 23), None if dom == "?" else _dom(dom),
        _ints(month, 1, 12, _MONTHS), None if dow == "?" else _dow(dow), _ints(year, 1970, MAX_YEAR),
    )


def timezone(name: str | None) -> tzinfo:
    if not name or name == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ScheduleError(f"unknown timezone {name}") from exc


@lru_cache(maxsize=1024)
def parse(expression: str, tz_name: str | None = None, *, allow_at: bool = False) -> Schedule:
    """Parse an expression (ScheduleError if AWS would refuse it)."""
    tz = timezone(tz_name)
    if m := _RATE.match(expression):
        value, unit = int(m.group(1)), m.group(2)
        # AWS wants the singular for 1 and the plural otherwise ("rate(1 minutes)" is refused).
        if value < 1 or (value == 1) != (not unit.endswith("s")):
            raise ScheduleError(expression)
        return Schedule(expression, rate_s=value * _UNIT_S[unit.rstrip("s")], tz=tz)
    if m := _CRON.match(expression):
        return Schedule(expression, cron=_cron(m.group(1)), tz=tz)
    if allow_at and (m := _AT.match(expression)):
        try:
            year, month, day, hour, minute, second = (int(g) for g in m.groups())
            when = datetime(year, month, day, hour, minute, second, tzinfo=tz)
        except ValueError as exc:
            raise ScheduleError(expression) from exc
        return Schedule(expression, at=when, tz=tz)
    raise ScheduleError(expression)


def next_firing(schedule: Schedule, nominal: float, real: float, now: float, scale: float,
                grace_s: float = 60.0) -> tuple[float | None, float | None]:
    """After the firing planned for `nominal` on the schedule's clock and `real` on the server's
    (the gap between firings divided by the time scale): the next (nominal, real) pair, or
    (None, None). A firing a little late (a busy server, under `grace_s`) keeps the rhythm; after a
    longer pause (the server was down) the missed firings are dropped, as AWS does not catch up."""
    nxt = schedule.next_after(nominal)
    if nxt is None:
        return None, None
    due = real + (nxt - nominal) / scale
    if due >= now - grace_s:
        return nxt, due
    nominal_now = nominal + (now - real) * scale  # where the schedule's clock stands now
    nxt = schedule.next_after(nominal_now)
    return (None, None) if nxt is None else (nxt, real + (nxt - nominal) / scale)
