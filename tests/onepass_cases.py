"""What the one pass's tests (tests/ingest/test_onepass*.py) share (a file published both ways and
compared is tests/ingest/conftest.py's Homes.same): files written line by line, the turns a sample misses, and the parser a file took."""

from __future__ import annotations

import random
from pathlib import Path

import tabular


def write_lines(path: Path, lines: list[str]) -> Path:
    """A UTF-8 file of these lines, each ended by a newline."""
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


# Columns whose first values say one thing and later ones another: each is the kind of value a
# sample misses. (head values, tail values)
TURNS = {
    "more_decimals": (["1.5", "2.25", "3.75"], ["4.125"]),
    "more_digits": (["12", "34", "56"], ["123456789012"]),
    "past_bigint": (["12", "34"], ["12345678901234567890"]),
    "int_then_decimal": (["1", "2", "3"], ["4.5"]),
    "leading_zero_later": (["10", "20", "30"], ["007"]),
    "text_later": (["10", "20", "30"], ["n/k"]),
    "empty_then_numbers": (["", "", ""], ["1", "2"]),
    "empty_then_dates": (["", "", ""], ["2024-01-02"]),
    "zeros_then_ones": (["0", "0", "0"], ["1"]),
    "date_then_bad_date": (["2024-01-02", "2024-02-03"], ["2024-02-30"]),
    "dmy_then_ambiguous": (["13/01/2024", "14/02/2024"], ["03/04/2024"]),
    "ambiguous_then_dmy": (["03/04/2024", "05/06/2024"], ["25/12/2024"]),
    "markers_later": (["1.5", "2.5"], ["NA", "-", "", "null"]),
    "spaces_later": (["1", "2"], ["  3  "]),
    "bool_then_text": (["yes", "no"], ["maybe"]),
    "group_marks_later": (["1000", "2000"], ["1,234,567"]),
    "negative_later": (["1", "2"], ["-3"]),
    "unit_later": (["5", "6"], ["7%"]),
    "times_then_bad": (["10:15", "11:30"], ["25:99"]),
    "money_then_more_decimals": (["$1.50", "$2.25"], ["$3.125"]),
    # A column of single characters, then a space: a value (Typing.spaces), not a null.
    "space_in_characters_later": (["a", "b", "c"], [" "]),
    # One group mark and no decimal mark among decimals: 7125 or 7.125? Asked (group_mark).
    "lone_group_later": (["7,5", "8,25", "1.234,5"], ["7.125"]),
    # Text on the sample (numbers short of mixed_values_share), then numbers: a question after all.
    "numbers_lift_a_text_column": (["1", "1", "1", "2024-01-02"], ["1"] * 6),
    "text_then_numbers": (["a", "b", "c"], ["1"] * 60),
    # Floating point on the sample (many decimals, scales that vary), then a value no DOUBLE holds.
    "floats_then_unholdable": (["0.980268513777", "-0.0412318367011", "3.68573087906"], ["0.12345678901234567891"]),
    # ... and then one a DOUBLE holds: the column stays DOUBLE.
    "floats_then_floats": (["0.980268513777", "-0.0412318367011", "3.68573087906"], ["211.83900000000003"]),
    # Two-digit years of this century, then one read past next year (1960 or 2060?): asked (century).
    "two_digit_years_then_doubtful": (["13/01/21", "14/02/22"], ["15/03/60"]),
    "two_digit_years_mdy_then_doubtful": (["01-13-21", "02-14-22"], ["03-15-55"]),
    "two_digit_years_then_this_century": (["13/01/21", "14/02/22"], ["15/03/05"]),
    # One letter of a pair (F: Female or False?), then its other: a flag after all.
    "one_letter_then_its_other": (["F", "F", "F"], ["T"]),
    "flag_letters_then_one_more": (["Y", "N", "Y"], ["n"]),
    # One letter alone, then a word of the same meaning: a flag after all.
    "one_letter_then_a_word": (["N", "N", "N"], ["yes"]),
    # Codes with an exponent (a scientific question), then a float: floating point after all;
    # and the other way, floats then a code, which a DOUBLE reads as the floats are read.
    "codes_then_a_float": (["12E3", "45E7", "1E5"], ["1.5"]),
    "floats_then_a_code": (["1.5", "2.25", "3.125E-2"], ["12E3"]),
}


# Turns that leave the column's type as the sample had it (a null marker, blanks, a sign, more
# digits that BIGINT still holds, a date that still reads day first): the one pass keeps them.
SAME_TYPE = {
    "markers_later",
    "spaces_later",
    "negative_later",
    "more_digits",
    "dmy_then_ambiguous",
    "floats_then_floats",
    "two_digit_years_then_this_century",
    "flag_letters_then_one_more",
    "floats_then_a_code",
}


def big_csv(path: Path, rows: int) -> Path:
    rng = random.Random(3)
    with path.open("w") as f:
        f.write("id,amount,day,note\n")
        for i in range(1, rows + 1):
            f.write(
                f"{i},{rng.randint(0, 99999)}.{rng.randint(0, 99):02d},2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},n{i % 97}\n"
            )
    return path


def parser_of(home: Path, path: Path, **config) -> str:
    """The reader that read `path` (duckdb, arrow, ...), ingested as `f` in a new home."""
    with tabular.connect(str(home), **config) as engine:
        ns = engine.namespace("acme", "one")
        assert ns.ingest_file(path, source_uri="f").state == "ready"
        return ns.dataset_get("f").datasets[0].origin.parser


def parser_in(home: Path) -> str:
    """The reader that read `f` in a home published before (tests/both_ways.py leaves it out)."""
    with tabular.connect(str(home)) as engine:
        return engine.namespace("acme", "one").dataset_get("f").datasets[0].origin.parser
