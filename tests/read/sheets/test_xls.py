"""Old binary Excel (.xls) is read through calamine like any workbook: typed values, the tables
of every visible sheet, a Total row left out (said, not rejected); what calamine cannot be
trusted with (a panic, a grid or an allocation sized by a lying record) fails the file with a
SPEC code, never the worker."""

import shutil

import pytest
from conftest import CORPUS, ROOT, columns

import tabular
from tabular.errors import IngestFailed
from tabular.read.formats import file_format
from tabular.read.sheets.rules import calamine_panics, is_panic

SHEETS = ROOT / "fixtures" / "sheets"
XLS = SHEETS / "typed_cells.xls"  # written by fixtures/make_xls_fixtures.py (xlwt)
PANICS = CORPUS / "calamine" / "tests" / "ptgexp-truncated-operand.xls"  # a truncated formula operand


def published(ns, path, uri=None, **fields):
    uri = uri or path.name
    status = ns.ingest_file(path, source_uri=uri, **fields)
    assert status.state == "ready", status.error_message
    return status, ns.dataset_get(uri, sample_rows=20).datasets


def types(dataset):
    return {c.name: (c.type, c.physical) for c in dataset.columns}


def test_an_xls_publishes_every_visible_table_typed(ns):
    status, found = published(ns, XLS)
    assert status.format == "xls"
    assert [(d.dataset_id, d.origin.sheet, d.origin.range, d.rows) for d in found] == [
        ("sales", "Sales", "A1:I7", 6),
        ("expenses", "Expenses", "A3:B10", 6),
        ("shifted", "Shifted", "C3:E6", 3),
    ]
    sales = found[0]
    assert sales.origin.format == "xls" and sales.origin.model_dump()["hidden_sheets"] == ["Secret"]
    assert types(sales) == {
        "Date": ("date", "DATE"),
        "Logged": ("datetime", "TIMESTAMP"),
        "Region": ("string", "VARCHAR"),
        "Units": ("number", "BIGINT"),
        "Revenue": ("number", "DECIMAL(7, 2)"),
        "Share": ("number", "DECIMAL(4, 3)"),
        "Note": ("string", "VARCHAR"),
        "Code": ("string", "VARCHAR"),
        "Paid": ("bool", "BOOLEAN"),
    }
    assert sales.questions == [] and sales.rows_rejected == 0 and sales.complete
    first, third = sales.sample[0], sales.sample[2]
    assert first == {
        "Date": "2024-01-05",
        "Logged": "2024-01-05T09:30:00",
        "Region": "North",
        "Units": 8,
        "Revenue": "1234.50",
        "Share": "0.125",
        "Note": "first order",
        "Code": "00123",
        "Paid": True,
    }
    # A datetime at midnight stays a datetime (calamine gives it back as a date); text digits stay text.
    assert third["Logged"] == "2024-02-02T00:00:00" and third["Code"] == "00007"
    assert [r["Code"] for r in sales.sample] == ["00123", "4410", "00007", "12000", "00123", "7"]
    assert columns(sales)["Note"].nulls == 1 and not columns(sales)["Code"].approved
    shifted = found[2]
    assert types(shifted) == {"Name": ("string", "VARCHAR"), "Code": ("string", "VARCHAR"), "When": ("date", "DATE")}
    assert [r["Code"] for r in shifted.sample] == ["0042", "7", "0100"]
    # A hidden sheet is read when named.
    _, (secret,) = published(ns, XLS, "secret", options={"sheets": ["Secret"]})
    assert (secret.origin.sheet, secret.rows, types(secret)["Value"]) == ("Secret", 1, ("number", "BIGINT"))


def test_the_total_row_of_an_xls_is_left_out_and_said_not_rejected(ns):
    status, found = published(ns, XLS)
    expenses = found[1]
    assert [r["Amount"] for r in expenses.sample] == ["120.50", "75.25", "310.00", "42.75", "18.00", "93.50"]
    assert (expenses.rows, expenses.rows_rejected, expenses.rejected, expenses.complete) == (6, 0, [], True)
    said = "row 10 of sheet 'Expenses' (a Total row: Total | 660) was left out so sums are not doubled"
    assert said in expenses.warnings and f"expenses: {said}" in status.warnings
    answer = ns.query(
        {
            "datasets": [{"source_uri": XLS.name, "dataset_id": "expenses"}],
            "aggregates": [{"fn": "sum", "column": "Amount"}],
        }
    )
    assert answer.complete and [str(v) for v in answer.rows[0]] == ["660.00"]


def test_the_fast_reader_reads_an_xls_as_calamine_does(tmp_path):
    """From sheet_fast_bytes on, an .xls is read column at a time (fastexcel): the same datasets."""

    def outcome(**settings):
        with tabular.connect(str(tmp_path / str(len(settings))), **settings) as engine:
            _, found = published(engine.namespace("a", "b"), XLS)
            return [
                (d.dataset_id, d.origin.range, d.rows, d.rows_rejected, d.warnings, types(d), d.sample) for d in found
            ]

    assert outcome(sheet_fast_bytes=0) == outcome()


def test_an_ole2_file_is_read_as_xls_whatever_its_name_and_a_zip_named_xls_as_xlsx(ns, tmp_path):
    shutil.copy(XLS, tmp_path / "export.csv")
    shutil.copy(XLS, tmp_path / "export")
    shutil.copy(SHEETS / "total_row.xlsx", tmp_path / "old.xls")
    assert (
        file_format("export.csv", {}, tmp_path / "export.csv")
        == file_format("export", {}, tmp_path / "export")
        == "xls"
    )
    assert file_format("old.xls", {}, tmp_path / "old.xls") == "xlsx"
    assert file_format("old.xls", {}) == "xls"  # the name alone
    status, found = published(ns, tmp_path / "export.csv")
    assert status.format == "xls" and [d.dataset_id for d in found] == ["sales", "expenses", "shifted"]
    status, (expenses,) = published(ns, tmp_path / "old.xls")
    assert status.format == "xlsx" and expenses.rows == 6


def test_an_encrypted_workbook_and_files_that_are_no_xls_fail_with_a_code(ns, tmp_path):
    status = ns.ingest_file(SHEETS / "encrypted.xlsx", source_uri="e")
    assert (status.state, status.error_code) == ("failed", "format_unavailable") and "encrypted" in status.error_message
    (tmp_path / "empty.xls").write_bytes(b"")
    (tmp_path / "text.xls").write_text("a,b\n1,2\n")
    (tmp_path / "cut.xls").write_bytes(XLS.read_bytes()[:700])
    for name, code in (("empty.xls", "no_text"), ("text.xls", "format_unavailable"), ("cut.xls", "format_unavailable")):
        status = ns.ingest_file(tmp_path / name, source_uri=name)
        assert (status.state, status.error_code) == ("failed", code), (name, status.error_message)
        assert not ns.dataset_get(name).found


def patched(tmp_path, name: str, record: bytes, at: int, value: bytes):
    """The fixture with the bytes at `at` of its first record of this type and length replaced."""
    data = bytearray(XLS.read_bytes())
    found = data.find(record)
    assert found > 0
    data[found + 4 + at : found + 4 + at + len(value)] = value
    (tmp_path / name).write_bytes(bytes(data))
    return tmp_path / name


def test_records_that_would_size_calamine_past_the_limits_are_refused_before_it_reads(tmp_path):
    # calamine reserves a sheet's DIMENSIONS (rows x columns) and holds every sheet as a grid
    # from its first cell to its last: a few bytes could ask for gigabytes, and a failed
    # allocation ends the process, not the file.
    dims = b"\x00\x02\x0e\x00"  # DIMENSIONS, 14 bytes: first row, last row + 1 (u32), first and last column + 1
    lying = patched(tmp_path, "lying.xls", dims, 4, (0x7FFFFFF0).to_bytes(4, "little"))
    far = patched(
        tmp_path, "far.xls", b"\xfd\x00\x0a\x00", 0, (65535).to_bytes(2, "little") + (255).to_bytes(2, "little")
    )  # a string at IV65536
    with tabular.connect(str(tmp_path / "home"), max_sheet_cells=1_000_000) as engine:
        ns = engine.namespace("a", "b")
        status = ns.ingest_file(lying, source_uri="lying")
        assert (status.state, status.error_code) == (
            "failed",
            "format_unavailable",
        ) and "DIMENSIONS" in status.error_message
        status = ns.ingest_file(far, source_uri="far")
        assert (status.state, status.error_code) == (
            "failed",
            "too_large",
        ) and "max_sheet_cells" in status.error_message
        assert ns.ingest_file(XLS, source_uri="good").state == "ready"


def test_a_calamine_panic_is_the_files_failure_and_nothing_else():
    PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})
    assert is_panic(PanicException("boom")) and not is_panic(KeyboardInterrupt()) and not is_panic(ValueError())
    with pytest.raises(IngestFailed) as failed, calamine_panics("the xls workbook"):
        raise PanicException("range start index 4 out of range for slice of length 2")
    assert (
        failed.value.error_code == "format_unavailable"
        and "calamine stopped on it (range start index 4" in failed.value.message
    )
    with pytest.raises(KeyboardInterrupt), calamine_panics("the xls workbook"):
        raise KeyboardInterrupt()
    with pytest.raises(ValueError), calamine_panics("the xls workbook"):
        raise ValueError("not ours")


def _panics_in_fastexcel(path) -> bool:
    import fastexcel

    try:
        fastexcel.read_excel(path.read_bytes())
    except BaseException as err:  # noqa: B036 - the point is what a panic derives from
        if is_panic(err):
            return True
    return False


@pytest.mark.skipif(not PANICS.is_file(), reason=f"the shared corpus is not at {CORPUS}")
def test_a_corpus_xls_calamine_panics_on_fails_format_unavailable_and_the_engine_goes_on(tmp_path):
    if not _panics_in_fastexcel(PANICS):
        pytest.skip("this fastexcel's calamine no longer panics on the file")
    # fastexcel reads every workbook; one worker, so that two ingests after the panic are more than it has
    with tabular.connect(str(tmp_path / "home"), sheet_fast_bytes=0, ingest_workers=1) as engine:
        ns = engine.namespace("a", "b")
        status = ns.ingest_file(PANICS, source_uri="panics")
        assert (status.state, status.error_code) == ("failed", "format_unavailable")
        assert "calamine stopped on it" in status.error_message and not ns.dataset_get("panics").found
        # More ingests than the pool has workers: none of them was lost.
        for k in range(engine.settings.ingest_workers + 1):
            assert ns.ingest_file(XLS, source_uri=f"after {k}").state == "ready"
    # python-calamine reads the same file (the small-file path): it publishes.
    with tabular.connect(str(tmp_path / "calm")) as engine:
        assert engine.namespace("a", "b").ingest_file(PANICS, source_uri="panics").state == "ready"
