"""Revisions publish whole or not at all, honour expected_revision, and stay in their namespace."""

import pytest
from conftest import CSV, ingest, snapshot_files

import tabular


def test_each_ingest_publishes_the_next_revision(ns):
    first, _ = ingest(ns, CSV / "dates_dmy.csv", source_uri="books")
    second, dataset = ingest(ns, CSV / "dates_mdy.csv", source_uri="books")
    assert (first.revision, second.revision) == (1, 2)
    assert dataset.revision == 2 and dataset.dataset_id == "dates_mdy"
    assert dataset.columns[1].format == "%m/%d/%Y"


def test_expected_revision_conflict_leaves_the_live_revision(ns):
    ingest(ns, CSV / "dates_dmy.csv", source_uri="books")
    status, _ = ingest(ns, CSV / "dates_mdy.csv", source_uri="books", expected_revision=0)
    assert (status.state, status.error_code) == ("failed", "revision_conflict")
    got = ns.dataset_get("books")
    assert got.revision == 1 and got.datasets[0].columns[1].format == "%d/%m/%Y"
    status, _ = ingest(ns, CSV / "dates_mdy.csv", source_uri="books", expected_revision=1)
    assert (status.state, status.revision) == ("ready", 2)


def test_a_failed_ingest_keeps_the_previous_revision_serving(ns, engine):
    ingest(ns, CSV / "crlf.csv", source_uri="data")
    status, _ = ingest(ns, CSV / "binary.csv", source_uri="data")
    assert status.state == "failed"
    got = ns.dataset_get("data")
    assert got.found and got.revision == 1 and got.datasets[0].rows == 4
    # Nothing half-written: one extraction folder and one snapshot file, for revision 1.
    assert len(list(engine.catalog.extractions_dir.iterdir())) == 1
    assert snapshot_files(engine) == {got.datasets[0].snapshot_id}


def test_namespaces_do_not_see_each_other(engine):
    mine, theirs = engine.namespace("acme", "finance"), engine.namespace("globex", "finance")
    ingest(mine, CSV / "crlf.csv", source_uri="shared-name")
    assert theirs.dataset_get("shared-name").found is False
    assert engine.namespace("acme", "sales").dataset_get("shared-name").found is False
    status = mine.ingest_file(CSV / "crlf.csv", source_uri="x")
    assert theirs.call("knowledge.ingest_status", {"ingestion_id": status.ingestion_id})["found"] is False


def test_a_local_file_over_max_local_file_bytes_is_refused_and_nothing_is_kept(tmp_path):
    with tabular.connect(str(tmp_path / "home"), max_local_file_bytes=100) as engine:
        with pytest.raises(tabular.TooLarge) as err:
            engine.namespace("a", "b").upload_file(CSV / "nulls.csv")
        assert err.value.status == 413
        # The refusal names the setting and the variable that changes it.
        assert "max_local_file_bytes (100 bytes)" in err.value.message
        assert "TABULAR_MAX_LOCAL_FILE_BYTES=" in err.value.message
        assert list(engine.catalog.uploads_dir.iterdir()) == []


def test_a_local_file_is_not_bounded_by_what_a_server_receives(tmp_path):
    # max_upload_bytes bounds bytes a server receives; a file read by path is bounded by
    # max_local_file_bytes, none by default (SPEC §5): a 766 MB CSV was refused as an upload.
    with tabular.connect(str(tmp_path / "home"), max_upload_bytes=100) as engine:
        ns = engine.namespace("a", "b")
        assert (CSV / "nulls.csv").stat().st_size > 100
        status = ns.ingest_file(CSV / "nulls.csv", source_uri="nulls.csv")
        assert status.state == "ready"
        assert ns.dataset_get("nulls.csv").datasets[0].rows > 0


def test_the_catalog_survives_a_restart(tmp_path):
    home = str(tmp_path / "home")
    with tabular.connect(home) as engine:
        ingest(engine.namespace("a", "b"), CSV / "currency.csv")
    with tabular.connect(home) as engine:
        got = engine.namespace("a", "b").dataset_get("currency.csv", sample_rows=2)
        assert got.found and [r["price_usd"] for r in got.datasets[0].sample] == ["12.00", "1234.50"]


def test_dataset_get_answers_by_id_and_reports_unknown_fields(ns):
    ingest(ns, CSV / "crlf.csv", source_uri="c")
    answer = ns.call("knowledge.dataset_get", {"source_uri": "c", "dataset_id": "crlf", "colour": "blue"})
    assert answer["found"] and answer["ignored_args"] == ["colour"]
    assert ns.call("knowledge.dataset_get", {"source_uri": "c", "dataset_id": "nope"})["found"] is False


def test_bad_input_is_a_validation_error_with_a_path(engine):
    with pytest.raises(tabular.ValidationFailed) as err:
        engine.call("knowledge.dataset_get", {"source_uri": "", "sample_rows": -1})
    paths = {e.path for e in err.value.errors}
    assert paths == {"source_uri", "sample_rows"}
    with pytest.raises(tabular.ValidationFailed) as err:
        engine.call("knowledge.ingest", {"upload_id": "u_missing", "source_uri": "x", "options": {"delimiter": ";;"}})
    assert [e.path for e in err.value.errors] == ["options.delimiter"]


SUM_IDS = {
    "datasets": [{"source_uri": "d"}],
    "group_by": [{"column": "when"}],
    "aggregates": [{"fn": "sum", "column": "qty"}],
}


def test_a_home_made_in_one_duckdb_file_is_moved_on_open(tmp_path):
    """Homes made before the catalog moved to SQLite held the catalog and every snapshot in one
    `tabular.duckdb`. Such a home is rebuilt here from a new one, then opened: its sources,
    rejected rows, approvals and answers are all there, and the old file is set aside."""
    import duckdb

    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("acme", "finance")
        _, ragged = ingest(ns, CSV / "ragged.csv", source_uri="r")
        _, dates = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
        ns.call(
            "knowledge.dataset_approve",
            {"source_uri": "d", "snapshot_id": dates.snapshot_id, "formats": {"when": "DMY"}},
        )
        before = {uri: ns.dataset_get(uri, sample_rows=5).model_dump() for uri in ("r", "d")}
        history = ns.call("knowledge.get", {"source_uri": "d"})["history"]
        summed = ns.query(SUM_IDS).rows
        tables = {
            t: [r[1] for r in engine.catalog.conn().execute(f"PRAGMA catalog.table_info({t})").fetchall()]
            for t in (
                "uploads",
                "jobs",
                "sources",
                "revisions",
                "datasets",
                "snapshots",
                "typings",
                "approvals",
                "deletions",
                "exports",
            )
        }
        rows = {t: engine.catalog.conn().execute(f"SELECT * FROM catalog.{t}").fetchall() for t in tables}
        snapshots = [r[0] for r in rows["snapshots"]]
    old = duckdb.connect(str(home / "tabular.duckdb"))
    old.execute("CREATE SCHEMA catalog; CREATE SCHEMA snapshots")
    for table, names in tables.items():
        old.execute(f"CREATE TABLE catalog.{table} ({', '.join(n + ' VARCHAR' for n in names)})")
        for row in rows[table]:
            old.execute(
                f"INSERT INTO catalog.{table} VALUES ({', '.join('?' * len(names))})",
                [None if v is None else str(v) for v in row],
            )
    for table, names in tables.items():  # back to the types DuckDB held
        for name in names:
            kind = (
                "TIMESTAMPTZ"
                if name.endswith("_at")
                else "INTEGER"
                if name
                in (
                    "revision",
                    "rows",
                    "idx",
                    "attempts",
                    "live_revision",
                    "last_revision",
                    "rows_rejected",
                    "bytes",
                    "expected_revision",
                )
                else "BOOLEAN"
                if name in ("approved", "retyped", "cancel_requested")
                else None
            )
            if kind:
                old.execute(f"ALTER TABLE catalog.{table} ALTER {name} TYPE {kind} USING {name}::{kind}")
    for snapshot_id in snapshots:
        path = home / "snapshots" / f"{snapshot_id}.duckdb"
        old.execute(f"ATTACH '{path}' AS s (READ_ONLY)")
        old.execute(
            f'CREATE TABLE snapshots."{snapshot_id}" AS FROM s.data; CREATE TABLE snapshots."{snapshot_id}.rejected" AS FROM s.rejected; DETACH s'
        )
        path.unlink()
    old.close()
    for name in ("catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"):
        (home / name).unlink(missing_ok=True)
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("acme", "finance")
        assert {uri: ns.dataset_get(uri, sample_rows=5).model_dump() for uri in ("r", "d")} == before
        assert ns.call("knowledge.get", {"source_uri": "d"})["history"] == history
        assert ns.query(SUM_IDS).rows == summed
        assert (home / "tabular.duckdb.moved").exists() and not (home / "tabular.duckdb").exists()
        assert snapshot_files(engine) == set(snapshots)
    # A process stopped after the move's commit, before its rename: the next open only renames.
    (home / "tabular.duckdb.moved").rename(home / "tabular.duckdb")
    with tabular.connect(str(home)) as engine:
        assert engine.namespace("acme", "finance").query(SUM_IDS).rows == summed
        assert not (home / "tabular.duckdb").exists()


@pytest.mark.parametrize(
    ("text", "header", "fmt", "total"),
    [
        ("Preis\n12,5\n13,25\n7,5\n", "Preis", "decimal_mark=,", "33.25"),
        ("amount\n1,250,000.75\n3,000.5\n12.25\n", "amount", "decimal_mark=.;group_mark=,", "1253013.50"),
        ("value\n1,2\n3,4\n", "value", "decimal_mark=,", "4.6"),
    ],
)
def test_a_one_column_file_of_numbers_with_marks_keeps_its_header_and_values(ns, tmp_path, text, header, fmt, total):
    path = tmp_path / "one.csv"
    path.write_text(text, encoding="utf-8")
    _, d = ingest(ns, path, source_uri="one")
    assert [(c.name, c.type, c.format) for c in d.columns] == [(header, "number", fmt)]
    got = ns.query({"datasets": [{"source_uri": "one"}], "aggregates": [{"fn": "sum", "column": header}]})
    assert str(got.rows[0][0]) == total and got.complete
    # Two columns of whole numbers under a header of one name would read the same: it is said.
    assert any("read as one column" in w and "options.delimiter" in w for w in d.warnings)


def test_a_two_line_file_of_text_keeps_both_lines_and_asks_for_the_header(ns, tmp_path):
    from conftest import ingest

    path = tmp_path / "kanji.txt"
    path.write_text("漢字\n漢字と色\n", encoding="utf-16")
    _, dataset = ingest(ns, path)
    assert dataset.rows == 2
    assert [q.kind for q in dataset.questions] == ["header_row"]
    got = ns.query({"datasets": [{"source_uri": "kanji.txt"}], "select": [{"column": "column_1"}]})
    assert [r[0] for r in got.rows] == ["漢字", "漢字と色"]


SPENDING = 'Date,Supplier,Department,Ref,Amount,VAT\n2024-01-02,Acme Ltd,Roads,A1,"12,354.27",0\n2024-01-05,Bolt plc,Parks,A2,"12,354.28",0\n'


def test_a_csv_total_row_is_left_out_so_sums_are_not_doubled(ns, tmp_path):
    # A council's spending file ends with its total: read as a row it doubled every sum.
    path = tmp_path / "spending.csv"
    path.write_text(SPENDING + 'Total,,,,"24,708.55",\n', encoding="utf-8")
    status, got = ingest(ns, path)
    assert got.rows == 2 and [r["Supplier"] for r in got.sample] == ["Acme Ltd", "Bolt plc"]
    assert got.warnings == ['line 4 (a Total row: Total,,,,"24,708.55",) was left out so sums are not doubled']


def test_a_total_row_whose_numbers_are_not_the_sums_is_kept_aside_and_said(ns, tmp_path):
    path = tmp_path / "spending.csv"
    path.write_text(SPENDING + 'Total,,,,"30,000.00",\n', encoding="utf-8")
    status, got = ingest(ns, path)
    assert got.rows == 2
    (warning,) = got.warnings
    assert "line 4" in warning and "not the sums of the rows above" in warning
    assert "Amount: it says 30,000.00, the rows above sum to 24708.55" in warning


def test_a_film_called_total_recall_stays_a_row(ns, tmp_path):
    path = tmp_path / "films.csv"
    path.write_text("Title,Year,Gross\nAlien,1979,104\nRobocop,1987,53\nTotal Recall,1990,261\n", encoding="utf-8")
    status, got = ingest(ns, path)
    assert got.rows == 3 and got.sample[-1]["Title"] == "Total Recall" and not got.warnings


def test_a_workbook_s_total_row_is_checked_by_the_same_rule(ns, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Spend"
    for row in [
        ["Supplier", "Amount"],
        ["Acme Ltd", 12354.27],
        ["Bolt plc", 12354.28],
        ["Bolt plc", 10],
        ["Total", 99],
    ]:
        sheet.append(row)
    book.save(tmp_path / "spend.xlsx")
    status, got = ingest(ns, tmp_path / "spend.xlsx")
    assert got.rows == 3
    (warning,) = got.warnings
    assert warning.startswith("row 5 of sheet 'Spend' (a Total row: Total | 99) was kept aside")
    assert "Amount: it says 99, the rows above sum to 24719" in warning


def test_a_line_count_that_does_not_add_up_fails_the_ingest_naming_the_counts(ns, tmp_path, monkeypatch):
    from tabular.read.lines import LineAccount

    check = LineAccount.check

    def one_line_lost(self, name):  # a reader that lost a line on the way
        self.lines += 1
        check(self, name)

    monkeypatch.setattr(LineAccount, "check", one_line_lost)
    path = tmp_path / "spending.csv"
    path.write_text(SPENDING, encoding="utf-8")
    status, got = ingest(ns, path)
    assert (status.state, status.error_code, got) == ("failed", "internal", None)
    assert status.error_message.startswith("this is a bug: 'spending' has 4 lines but the reader accounts for 3")
