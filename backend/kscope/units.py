"""Simulated-time arguments: "2s", "150ms", "500us", "1000ns" -> nanoseconds."""

import re

_UNITS_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(s|ms|us|ns)")
_FORMS = "e.g. 2s, 150ms, 500us, 1000ns"


def parse_duration_ns(text: str) -> int:
    """A duration with its unit (s, ms, us or ns; decimals allowed, e.g. "1.5ms") in ns.

    ValueError, naming the text and the accepted forms, for anything else: a missing
    unit, a negative number, or a fraction of a nanosecond.
    """
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise ValueError(f"bad duration {text!r}: expected a number and a unit, {_FORMS}")
    number, unit = match.groups()
    whole, _, frac = number.partition(".")
    scale = _UNITS_NS[unit]
    frac_ns = int(frac or "0") * scale
    digits = 10 ** len(frac or "")
    if frac_ns % digits:
        raise ValueError(f"bad duration {text!r}: finer than a nanosecond ({_FORMS})")
    return int(whole) * scale + frac_ns // digits
