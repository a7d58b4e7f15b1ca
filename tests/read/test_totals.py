"""The one rule for a total row, for every format (read/totals.py)."""

from __future__ import annotations

import pytest

from tabular.read.totals import is_total_cells, is_total_label, written

LABELS = [
    "Total",
    "TOTAL",
    "Totals:",
    "Grand total",
    "Total for Danish part:",
    "Sum",
    "Gesamt",
    "Summe",
    "Insgesamt",
    "Total général",
    "Totale",
    "Totaal",
    "Итого",
    "Всего",
    "Razem",
    "Suma",
    "Yhteensä",
    "合計",
    "合计",
    "Toplam",
]


@pytest.mark.parametrize("label", LABELS)
def test_a_total_word_alone_in_any_language_labels_a_total(label):
    assert is_total_label(label)
    assert is_total_cells([label, "", "12", "1,250.00"])


@pytest.mark.parametrize(
    "title", ["Total Recall", "Totally Spies", "Summer", "Sumatra", "Total Eclipse", "Subtotals are"]
)
def test_a_title_that_starts_with_a_total_word_is_no_total(title):
    assert not is_total_label(title)
    assert not is_total_cells([title, "1990", "261"])


def test_a_total_row_holds_numbers_and_no_other_text():
    assert is_total_cells(["Total", "", "", "", "24,708.55", ""])
    assert is_total_cells(["", "Total", "€ 1.200,50", "(35)", "12%"])
    assert not is_total_cells(["Total", "", ""])  # no number: a row of a category named Total
    assert not is_total_cells(["Total", "Roads", "12"])  # text beside it: a row
    assert not is_total_cells(["Alien", "1979"])


def test_the_row_is_written_as_the_file_wrote_it():
    assert written(["Total", "", "24,708.55", None], ",") == 'Total,,"24,708.55",'
    assert written(["Summe", "12,75"], ";") == "Summe;12,75"
