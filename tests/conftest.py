import os
from pathlib import Path

import pytest

import tabular

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "fixtures" / "csv"
CORPUS = ROOT.parent / "shared" / "corpus"

# The processes the tests start (`tabular ...`, servers, a clone's commands) keep their bytecode as
# a person's do: where the environment says PYTHONDONTWRITEBYTECODE (CI machines may), each would
# compile again every module it imports.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture
def engine(tmp_path):
    with tabular.connect(str(tmp_path / "home")) as e:
        yield e


@pytest.fixture
def ns(engine):
    return engine.namespace("acme", "finance")


def ingest(ns, path, source_uri=None, **fields):
    """Ingest a file and answer (status, the first dataset or None)."""
    path = Path(path)
    uri = source_uri or path.name
    status = ns.ingest_file(path, source_uri=uri, **fields)
    if status.state != "ready":
        return status, None
    got = ns.dataset_get(uri, sample_rows=50)
    return status, got.datasets[0]


def snapshot_files(engine) -> set[str]:
    """The snapshots on the home's disk (each is its own file; one being written counts too)."""
    return {p.name.split(".")[0] for p in engine.catalog.snapshots_dir.iterdir()}


def columns(dataset):
    return {c.name: c for c in dataset.columns}


# The owner of jobs no process runs: a job written with it stays in the state it is written in.
DEAD_OWNER = "99999-deadbeef"


def held_job(catalog, ingestion_id: str, **fields) -> None:
    """A row of catalog.jobs as a job in that state holds it (pending in the org acme's
    namespace fin unless `fields` say otherwise), owned by no process."""
    from tabular.store import catalog as C

    row = {
        "org": "acme",
        "namespace": "fin",
        "source_uri": "a.csv",
        "state": "pending",
        "attempts": 0,
        "owner": DEAD_OWNER,
        "cancel_requested": False,
        "created_at": C.now(),
        "updated_at": C.now(),
    }
    with catalog.change() as con:
        C.insert(con, "jobs", ingestion_id=ingestion_id, **{**row, **fields})


@pytest.fixture
def pairs(ns, tmp_path):
    """400 rows whose key takes 4 values: a self-join (PAIRS) gives 40,000 rows."""
    path = tmp_path / "pairs.csv"
    path.write_text("k,v\n" + "".join(f"{i % 4},{i}\n" for i in range(400)))
    assert ns.ingest_file(path, source_uri="pairs").state == "ready"
    return ns


PAIRS = {
    "datasets": [{"source_uri": "pairs", "alias": "a"}, {"source_uri": "pairs", "alias": "b"}],
    "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
}
