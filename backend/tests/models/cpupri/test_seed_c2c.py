"""The seed's perf c2c appendix reader (kscope/models/cpupri/seed_c2c.py): rows, counts from
the line's totals, the merge by offset and symbol, and located errors."""

import pytest

from kscope.models.cpupri import seed_c2c

HEADER = """------- ------- ------ ------ ------ ------ ------------------------
Rmt Lcl Store Data Load Total Symbol
Hitm% Hitm% L1 Hit% offset cycles records
------- ------- ------ ------ ------ ------ ------------------------
155 39 39 0xff14d52c4682d800
------- ------- ------ ------ ------ ------ ------------------------
"""


def test_the_shipped_appendix_reads_as_the_seed_prints_it() -> None:
    line = seed_c2c.seed_appendix()
    assert line.address == 0xFF14D52C4682D800
    assert (line.rmt_hitm, line.lcl_hitm, line.store_l1_hit) == (155, 39, 39)
    assert len(line.rows) == 34
    first = line.rows[0]
    assert first["symbol"] == "_find_first_and_bit" and first["offset"] == 0
    assert first["rmt_hitm_pct"] == 43.23 and first["load_cycles"] == 3489 and first["records"] == 415
    assert first["rmt_hitm"] == 67                       # 43.23% of 155
    assert {r["offset"] for r in line.rows} == set(range(0, 64, 8))
    assert sum(r["records"] for r in line.rows) == 3156
    assert max(r["load_cycles"] for r in line.rows) == 8755
    assert min(r["load_cycles"] for r in line.rows) == 2185


def test_merge_sums_records_and_weights_cycles() -> None:
    merged = seed_c2c.merge_by_offset_symbol(seed_c2c.seed_appendix().rows)
    ffab0 = next(m for m in merged if m["offset"] == 0 and m["symbol"] == "_find_first_and_bit")
    assert ffab0["records"] == 415 + 33
    assert ffab0["load_cycles"] == round((3489 * 415 + 2712 * 33) / 448)
    assert abs(sum(m["records_share"] for m in merged) - 1) < 1e-3


@pytest.mark.parametrize("row,column,why", [
    ("43.23 43.59% 0.00% 0x0 3489 415 _find_first_and_bit", "Rmt Hitm%", "not a percentage"),
    ("43.23% 43.59% 0.00% 0xZ 3489 415 _find_first_and_bit", "Data offset", "not a hex offset"),
    ("43.23% 43.59% 0.00% 0x0 3a89 415 _find_first_and_bit", "Load cycles", "not a number"),
    ("43.23% 43.59% 0.00% 0x0 3489 -4 _find_first_and_bit", "Total records", "not a number"),
    ("43.23% 43.59% 0.00% 0x0 3489", "Total records", "5 fields, 7 expected"),
])
def test_a_bad_row_is_located(row: str, column: str, why: str) -> None:
    with pytest.raises(seed_c2c.C2cFormatError) as err:
        seed_c2c.parse(HEADER + row + "\n", "x.txt")
    assert err.value.source == "x.txt" and err.value.line == 7
    assert err.value.column == column and why in str(err.value)


def test_rows_before_totals_and_empty_input_are_errors() -> None:
    with pytest.raises(seed_c2c.C2cFormatError, match="before its cache line"):
        seed_c2c.parse("Rmt Lcl\n43.23% 43.59% 0.00% 0x0 3489 415 f\n", "y")
    with pytest.raises(seed_c2c.C2cFormatError, match="no cache line table"):
        seed_c2c.parse("hello\n", "z")


def test_input_is_bounded() -> None:
    with pytest.raises(seed_c2c.C2cFormatError, match="longer than"):
        seed_c2c.parse(HEADER + "x" * (seed_c2c.MAX_LINE + 1) + "\n", "w")
    with pytest.raises(seed_c2c.C2cFormatError, match="more than"):
        seed_c2c.parse("\n" * (seed_c2c.MAX_LINES + 1), "v")
