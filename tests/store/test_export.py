"""Snapshots as Parquet (tabular/export.py): one zstd file per snapshot with its row id, in a
directory or at an object-store URL, recorded in catalog.exports; `tabular export`."""

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import ROOT

import tabular
from tabular.cli import main
from tabular.store.export import export_snapshot, location_of


@pytest.fixture
def fresh(tmp_path):
    """An engine with customers.csv ingested and nothing exported yet."""
    engine = tabular.connect(str(tmp_path / "home"))
    ns = engine.namespace("export", "tests")
    assert ns.ingest_file(ROOT / "fixtures" / "query" / "customers.csv", source_uri="customers.csv").state == "ready"
    yield engine, ns.dataset_get("customers.csv").datasets[0]
    engine.close()


def test_snapshots_export_as_parquet(fresh, tmp_path):
    """One zstd Parquet file per snapshot, with its row id, recorded in the catalog; exporting
    again answers the recorded file."""
    engine, got = fresh
    assert location_of(engine.catalog, got.snapshot_id) is None
    first = export_snapshot(engine.catalog, got.snapshot_id, str(tmp_path / "out"))
    # named for what it holds: org, namespace, source, dataset, then the snapshot
    assert first.location == str(
        tmp_path / "out" / "export" / "tests" / "customers.csv" / f"customers.{got.snapshot_id}.parquet"
    )
    assert first.rows == got.rows
    meta = pq.ParquetFile(first.location).metadata
    assert meta.num_rows == got.rows and meta.row_group(0).column(0).compression == "ZSTD"
    table = pq.read_table(first.location)
    assert set(table.column_names) == {"__row_id", *[c.name for c in got.columns]}
    ids = table.column("__row_id").to_pylist()
    assert ids == sorted(ids) and len(set(ids)) == got.rows
    assert location_of(engine.catalog, got.snapshot_id) == first
    assert export_snapshot(engine.catalog, got.snapshot_id, str(tmp_path / "out")) == first
    assert not list((tmp_path / "out").rglob("*.partial"))
    # Elsewhere: one more copy, recorded; the latest is where the snapshot is found.
    second = export_snapshot(engine.catalog, got.snapshot_id, str(tmp_path / "elsewhere"))
    assert second.location != first.location and Path(second.location).is_file()
    assert location_of(engine.catalog, got.snapshot_id) == second
    assert location_of(engine.catalog, got.snapshot_id, first.location) == first


def test_export_to_a_url(fresh, tmp_path):
    """An object-store URL goes through pyarrow's filesystems (file:// here; s3:// alike)."""
    engine, got = fresh
    out = export_snapshot(engine.catalog, got.snapshot_id, f"file://{tmp_path}/bucket/prefix")
    assert out.location == f"{tmp_path}/bucket/prefix/export/tests/customers.csv/customers.{got.snapshot_id}.parquet"
    assert pq.read_metadata(out.location).num_rows == out.rows == got.rows


def test_the_cli_exports_every_live_snapshot_named_by_source_with_a_manifest(tmp_path, capsys):
    """`tabular export`, run through `main` as the command runs it (no interpreter per command)."""
    home, out = tmp_path / "home", tmp_path / "out"

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--home", str(home), *args])
        printed = capsys.readouterr()
        return code, printed.out, printed.err

    query = ROOT / "fixtures" / "query"
    assert run("ingest", str(query / "orders.csv"), str(query / "items.csv"))[0] == 0
    assert run("ingest", str(query / "items.csv"), "--source-uri", "../../odd name?.csv")[0] == 0
    code, printed, errors = run("export", str(out))
    assert code == 0 and "3 live snapshots exported" in printed, printed + errors
    manifest = json.loads((out / "manifest.json").read_text())
    files = {(f["source_uri"], f["dataset_id"]): f for f in manifest["files"]}
    assert set(files) == {("orders.csv", "orders"), ("items.csv", "items"), ("../../odd name?.csv", "items")}
    for f in manifest["files"]:
        path = (out / f["file"]).resolve()
        assert (
            path.is_relative_to(out.resolve())
            and pq.read_metadata(path).num_rows == f["rows"]
            and f["snapshot_id"] in path.name
        )
    assert files[("orders.csv", "orders")]["rows"] == 300
    assert files[("orders.csv", "orders")]["file"].startswith("default/default/orders.csv/orders.")
    assert files[("items.csv", "items")]["rows"] == sum(1 for _ in open(ROOT / "fixtures" / "query" / "items.csv")) - 1


def test_exports_of_snapshots_retention_drops_go_with_them(tmp_path):
    """A snapshot past `snapshots_kept` loses its export record in the same transaction, and its
    file in the default exports folder at the next start; the live snapshot's file stays."""
    from tabular.store.export import destination

    home = str(tmp_path / "home")
    engine = tabular.connect(home, snapshots_kept=1)
    ns = engine.namespace("export", "tests")
    source = ROOT / "fixtures" / "query" / "customers.csv"
    assert ns.ingest_file(source, source_uri="customers.csv").state == "ready"
    old = ns.dataset_get("customers.csv").datasets[0].snapshot_id
    old_file = export_snapshot(engine.catalog, old, destination(engine.catalog, "")).location
    other = tmp_path / "customers.csv"  # other bytes (the same ones are no new revision): a last blank line
    other.write_bytes(source.read_bytes() + b"\n")
    assert ns.ingest_file(other, source_uri="customers.csv").state == "ready"  # revision 2: the old snapshot is pruned
    new = ns.dataset_get("customers.csv").datasets[0].snapshot_id
    new_file = export_snapshot(engine.catalog, new, destination(engine.catalog, "")).location
    assert location_of(engine.catalog, old) is None and location_of(engine.catalog, new) is not None
    engine.close()
    with tabular.connect(home, snapshots_kept=1) as again:
        assert not Path(old_file).exists() and Path(new_file).exists()
        assert location_of(again.catalog, new).location == new_file
