"""The seed's perf c2c appendix (a trimmed `perf c2c report --stdio` pareto block) as rows.

Seed 001 prints one cache line's table with the columns Rmt Hitm%, Lcl Hitm%, Store L1 Hit%,
Data offset, Load cycles, Total records, Symbol, under a three-row header, then one line with
the cache line's totals (remote HITMs, local HITMs, store L1 hits) and its address. Each row's
percentages are of those totals, so the counts are recovered as pct x total.

This reader takes exactly that layout (the file shipped in data/, or the same block pasted
from a report); the full `perf c2c report --stdio` decoder with every column (issue 16 item 4)
is not this module. Unreadable input raises C2cFormatError naming the file, the line, the
column and the text; input is bounded (MAX_LINES lines of at most MAX_LINE chars).
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APPENDIX = Path(__file__).resolve().parent / "data" / "seed001-c2c-appendix.txt"
MAX_LINES = 100_000
MAX_LINE = 4096
COLUMNS = ("Rmt Hitm%", "Lcl Hitm%", "Store L1 Hit%", "Data offset", "Load cycles",
           "Total records", "Symbol")


class C2cFormatError(ValueError):
    """A line of a c2c table that does not read: where and why."""

    def __init__(self, source: str, line: int, column: str, text: str, why: str) -> None:
        self.source, self.line, self.column, self.text, self.why = source, line, column, text, why
        super().__init__(f"{source}:{line}: column {column!r}: {why}: {text!r}")


@dataclass(frozen=True)
class C2cLine:
    address: int
    rmt_hitm: int
    lcl_hitm: int
    store_l1_hit: int
    rows: tuple[dict[str, Any], ...]


_PCT = re.compile(r"^(\d+(?:\.\d+)?)%$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_INT = re.compile(r"^\d+$")


def _pct(source: str, n: int, column: str, tok: str) -> float:
    m = _PCT.match(tok)
    if not m:
        raise C2cFormatError(source, n, column, tok, "not a percentage")
    return float(m.group(1))


def _int(source: str, n: int, column: str, tok: str) -> int:
    if not _INT.match(tok):
        raise C2cFormatError(source, n, column, tok, "not a number")
    return int(tok)


def parse(text: str, source: str = "<c2c>") -> list[C2cLine]:
    """Every cache line's block in `text`, rows in file order."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise C2cFormatError(source, MAX_LINES + 1, "-", "", f"more than {MAX_LINES} lines")
    out: list[C2cLine] = []
    header = False
    current: dict[str, Any] | None = None
    for n, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE:
            raise C2cFormatError(source, n, "-", raw[:40] + "...", f"line longer than {MAX_LINE} chars")
        line = raw.strip()
        if not line or line.startswith("#") or set(line) <= set("- "):
            continue
        toks = line.split()
        if toks[0] in ("Rmt", "Hitm%"):
            header = True
            continue
        if not header:
            continue                                   # prose before the table
        if len(toks) == 4 and _HEX.match(toks[3]) and all(_INT.match(t) for t in toks[:3]):
            if current:
                out.append(_close(current))
            current = {"address": int(toks[3], 16), "rmt_hitm": int(toks[0]), "lcl_hitm": int(toks[1]),
                       "store_l1_hit": int(toks[2]), "_rows": []}
            continue
        if current is None:
            raise C2cFormatError(source, n, "Rmt Hitm%", line[:60], "a row before its cache line's totals")
        if len(toks) < 7:
            raise C2cFormatError(source, n, COLUMNS[len(toks)] if len(toks) < 7 else "-", line[:60],
                                 f"{len(toks)} fields, 7 expected")
        rmt, lcl, st = (_pct(source, n, COLUMNS[i], toks[i]) for i in range(3))
        if not _HEX.match(toks[3]):
            raise C2cFormatError(source, n, "Data offset", toks[3], "not a hex offset")
        cycles = _int(source, n, "Load cycles", toks[4])
        records = _int(source, n, "Total records", toks[5])
        current["_rows"].append({
            "offset": int(toks[3], 16), "symbol": " ".join(toks[6:]),
            "rmt_hitm_pct": rmt, "lcl_hitm_pct": lcl, "store_l1_hit_pct": st,
            "load_cycles": cycles, "records": records,
            "rmt_hitm": round(rmt * current["rmt_hitm"] / 100),
            "lcl_hitm": round(lcl * current["lcl_hitm"] / 100),
            "store_l1_hit": round(st * current["store_l1_hit"] / 100),
            "line": n,
        })
    if current:
        out.append(_close(current))
    if not out:
        raise C2cFormatError(source, len(lines), "-", "", "no cache line table found")
    return out


def _close(current: dict[str, Any]) -> C2cLine:
    rows = tuple(current.pop("_rows"))
    return C2cLine(rows=rows, **current)


def seed_appendix() -> C2cLine:
    """The seed's one cache line (level 0's bitmap, in all likelihood)."""
    return parse(APPENDIX.read_text(encoding="utf-8"), str(APPENDIX.name))[0]


def merge_by_offset_symbol(rows: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """perf coalesces by pid and iaddr, so a symbol shows on several rows per offset: sum
    records and HITMs, weight cycles by records (the appendix has no per-row sample count of
    loads alone, so records stand for the weight)."""
    merged: dict[tuple[int, str], dict[str, Any]] = {}
    for r in rows:
        key = (r["offset"], r["symbol"])
        m = merged.setdefault(key, {"offset": r["offset"], "symbol": r["symbol"], "records": 0,
                                    "rmt_hitm_pct": 0.0, "lcl_hitm_pct": 0.0, "store_l1_hit_pct": 0.0,
                                    "_cyc": 0.0})
        m["records"] += r["records"]
        m["rmt_hitm_pct"] += r["rmt_hitm_pct"]
        m["lcl_hitm_pct"] += r["lcl_hitm_pct"]
        m["store_l1_hit_pct"] += r["store_l1_hit_pct"]
        m["_cyc"] += r["load_cycles"] * r["records"]
    out = []
    for m in merged.values():
        m["load_cycles"] = round(m.pop("_cyc") / m["records"]) if m["records"] else 0
        for k in ("rmt_hitm_pct", "lcl_hitm_pct", "store_l1_hit_pct"):
            m[k] = round(m[k], 2)
        out.append(m)
    total = sum(m["records"] for m in out) or 1
    for m in out:
        m["records_share"] = round(m["records"] / total, 4)
    return sorted(out, key=lambda m: (m["offset"], -m["records"]))
