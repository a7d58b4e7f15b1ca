"""The red team's link attacks of issue 30, against a real `tabular serve` with two orgs where the
defect lived in the server (a FIFO wedging every org, the home linked, another org's folder, the
roots of each org), and against an engine where it lived in the scan itself (the symlink swap,
hard links into the home, the uploads a full queue left behind)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import httpx
import pytest
from service.support import Server

import tabular
from tabular.errors import Overloaded
from tabular.service.auth import token_hash

from .conftest import until

ACME, GLOBEX, INITECH = "tok-acme-links", "tok-globex-links", "tok-initech-links"


def write(path: Path, text: str, age: float = 5.0) -> None:
    """A file written whole, its mtime `age` seconds back so that a scan takes it as settled."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    then = time.time() - age
    os.utime(path, (then, then))


def tokens(folder: Path, initech_roots: list[str] | None = None) -> Path:
    """acme's writer and globex's writer, and initech's, with its own link roots, when they are given."""
    entries = {
        token_hash(ACME): {"org": "acme", "namespaces": ["*"], "role": "writer"},
        token_hash(GLOBEX): {"org": "globex", "namespaces": ["*"], "role": "writer"},
    }
    if initech_roots is not None:
        entries[token_hash(INITECH)] = {
            "org": "initech",
            "namespaces": ["*"],
            "role": "writer",
            "link_roots": initech_roots,
        }
    path = folder / "tokens.json"
    path.write_text(json.dumps(entries))
    return path


def serve(tmp_path: Path, initech_roots: list[str] | None = None, home: Path | None = None) -> Server:
    """A server whose deployment roots are `tmp_path`, which holds its home (the CLI's default shape)."""
    return Server(
        home or tmp_path / "home",
        tokens=tokens(tmp_path, initech_roots),
        link_roots=str(tmp_path),
        link_settle_seconds=0.2,
        link_rescan_seconds=1,
        close_seconds=5,
    )


def link(c: httpx.Client, path: Path, **body) -> httpx.Response:
    return c.post("/v1/knowledge.link_dir", json={"path": str(path), **body})


def code(r: httpx.Response) -> str:
    return r.json()["detail"]["code"]


def test_a_fifo_in_one_orgs_folder_wedges_nothing(tmp_path):
    hostile = tmp_path / "hostile"
    write(hostile / "a.csv", "id\n1\n")
    os.mkfifo(hostile / "pipe.csv")
    write(tmp_path / "calm" / "b.csv", "id\n2\n")
    srv = serve(tmp_path).start()
    try:
        with srv.client(GLOBEX, timeout=60) as globex, srv.client(ACME, timeout=60) as acme:
            r = link(globex, hostile)  # the scan used to block in open() forever, holding every org's lock
            assert r.status_code == 200, r.text
            files = {
                f["path"]: f
                for f in globex.post("/v1/knowledge.dir_files", json={"link_id": r.json()["link_id"]}).json()["files"]
            }
            assert files["pipe.csv"]["state"] == "skipped", files
            assert "FIFO" in files["pipe.csv"]["error_message"]
            assert files["a.csv"]["state"] in ("pending", "learned")
            # The clients' 60 s timeout is the hang guard: a call blocked behind the FIFO never answers.
            r = link(acme, tmp_path / "calm")
            assert r.status_code == 200, r.text
            r = acme.post("/v1/knowledge.retry_dir", json={"link_id": r.json()["link_id"]})
            assert r.status_code == 200, r.text
        # The rescan at start meets the FIFO again and does not hang there either.
        srv.stop()
        srv = Server(srv.home, **{k: srv.env[f"TABULAR_{k.upper()}"] for k in ("tokens", "link_roots")}).start()
        with srv.client(ACME, timeout=60) as acme:
            r = acme.post("/v1/knowledge.list_dirs", json={})
            assert r.status_code == 200, r.text
        # SIGTERM stops it (close_seconds is 5 s here; wait's 60 s only guards a hang, raising if it never does).
        srv.proc.terminate()
        assert srv.proc.wait(60) is not None
    finally:
        srv.stop()


def test_the_home_is_never_linkable_whatever_the_roots(tmp_path):
    srv = serve(tmp_path).start()
    try:
        with srv.client(ACME) as acme, srv.client(GLOBEX) as globex:
            assert (
                acme.post("/v1/knowledge.upload", params={"filename": "x.csv"}, content=b"id\n1\n").status_code == 200
            )
            for path in (srv.home, srv.home / "uploads", srv.home / "extractions", srv.home / "snapshots"):
                r = link(globex, path)
                assert r.status_code == 403 and code(r) == "PATH_NOT_ALLOWED", r.text
            # A folder holding the home (the roots themselves) may be linked; the home is not read in it.
            r = link(globex, tmp_path, patterns=["*"])
            assert r.status_code == 200, r.text
            files = globex.post("/v1/knowledge.dir_files", json={"link_id": r.json()["link_id"]}).json()["files"]
            assert not any(f["path"].startswith("home/") for f in files), files
            assert {f["path"] for f in files} <= {"tokens.json", f"server-{srv.port}.log"}
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def rooted(tmp_path_factory):
    """One server for the checks that link only folders of their own under its roots (the home's
    check and the FIFO's have their own: one lists the roots whole, the other restarts the server)."""
    root = tmp_path_factory.mktemp("roots")
    srv = serve(root, initech_roots=[str(root / "initech-data")]).start()
    yield srv, root
    srv.stop()


def test_every_path_a_link_may_not_watch_gets_one_answer_naming_no_server_path(rooted, tmp_path_factory):
    """The home, what is in it (there or not), and paths outside the roots (there or not, a
    symlink loop, a user's ~) answer alike: the home's own message had told a writer which path
    was the home, and the roots' listed the server's folders."""
    srv, root = rooted
    outside = tmp_path_factory.mktemp("outside")
    (outside / "real").mkdir()
    (outside / "loop").symlink_to(outside / "loop")
    with srv.client(GLOBEX) as globex:
        paths = [
            str(srv.home),
            str(srv.home / "uploads"),
            str(srv.home / "no-such-folder"),
            str(srv.home / "uploads" / ".." / "nothing"),
            str(outside / "real"),
            str(outside / "no-such-folder"),
            str(outside / "loop" / "x"),
            "/etc",
            "~root",
            "~nosuchuser/x",
            "relative/to/the/server",
        ]
        messages = set()
        for path in paths:
            r = globex.post("/v1/knowledge.link_dir", json={"path": path})
            assert r.status_code == 403 and code(r) == "PATH_NOT_ALLOWED", (path, r.text)
            message = r.json()["detail"]["message"]
            assert repr(path) in message, message
            said = message.replace(repr(path), "<path>")
            assert str(srv.home) not in said and str(root) not in said and "/" not in said, said
            messages.add(said)
        assert len(messages) == 1, messages
        # Inside the roots whether a folder is there is the caller's to know.
        r = link(globex, root / "no-such-folder")
        assert r.status_code == 404 and code(r) == "PATH_NOT_FOUND", r.text


def test_another_orgs_link_of_a_folder_changes_nothing_of_the_answer(rooted):
    """What an org may read is its link roots alone: another org's link of the same folder, one
    inside it or one around it, neither refuses it nor shows (the refusal had told globex that
    acme linked there). Each link is its org's own: its sources, its unlinking."""
    srv, root = rooted
    shared = root / "shared"
    write(shared / "acme" / "rows.csv", "id\n1\n2\n")
    write(shared / "acme" / "inner" / "x.csv", "id\n1\n")
    write(shared / "calm" / "rows.csv", "id\n1\n2\n")
    with srv.client(ACME) as acme, srv.client(GLOBEX) as globex:
        never = link(globex, shared / "calm")  # a folder no one else linked
        assert never.status_code == 200, never.text
        mine = link(acme, shared / "acme")
        assert mine.status_code == 200, mine.text
        for path in (shared / "acme", shared / "acme" / "inner", shared):
            r = link(globex, path)
            assert r.status_code == 200, r.text
            assert set(r.json()) == set(never.json()) and r.json()["link_id"] != mine.json()["link_id"]
        theirs = link(globex, shared / "acme").json()  # linked again: the same link
        # Both follow the folder: a file written into it becomes a source of each org.
        write(shared / "acme" / "new.csv", "id\n7\n")
        for c, link_id in ((acme, mine.json()["link_id"]), (globex, theirs["link_id"])):
            deadline = time.monotonic() + 120  # only guards a hang
            while time.monotonic() < deadline:
                files = c.post("/v1/knowledge.dir_files", json={"link_id": link_id}).json()["files"]
                if any(f["path"] == "new.csv" and f["state"] == "learned" for f in files):
                    break
                time.sleep(0.2)
            assert any(f["path"] == "new.csv" and f["state"] == "learned" for f in files), files
        assert theirs["link_id"] not in {
            x["link_id"] for x in acme.post("/v1/knowledge.list_dirs", json={}).json()["links"]
        }
        r = acme.post("/v1/knowledge.unlink_dir", json={"link_id": theirs["link_id"]})
        assert r.status_code == 404 and code(r) == "RESOURCE_NOT_FOUND", r.text
        r = acme.post("/v1/knowledge.unlink_dir", json={"link_id": mine.json()["link_id"]})
        assert r.status_code == 200, r.text
        listed = globex.post("/v1/knowledge.list_dirs", json={}).json()["links"]
        assert theirs["link_id"] in {x["link_id"] for x in listed}  # acme's unlink left globex's be


def test_each_org_links_only_inside_its_own_roots_from_the_tokens_file(rooted):
    srv, root = rooted
    mine = root / "initech-data"  # initech's own roots in the tokens file
    write(mine / "rows.csv", "id\n1\n")
    write(root / "elsewhere" / "rows.csv", "id\n1\n")
    with srv.client(INITECH) as initech, srv.client(GLOBEX) as globex:
        r = link(initech, root / "elsewhere")  # inside the deployment's roots, outside initech's own
        assert r.status_code == 403 and code(r) == "PATH_NOT_ALLOWED", r.text
        assert link(initech, mine).status_code == 200
        assert link(globex, root / "elsewhere").status_code == 200  # globex keeps the deployment's


# -- in the scan itself: an engine -------------------------------------------------------------


@pytest.fixture
def engine(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with tabular.connect(
        str(tmp_path / "home"), link_roots=str(root), link_settle_seconds=0.1, job_queue_per_org=64
    ) as engine:
        yield engine, root


def stored_uploads(engine) -> list[bytes]:
    return [p.read_bytes() for p in engine.catalog.uploads_dir.iterdir() if p.is_file()]


def test_a_symlink_swapped_in_after_the_check_is_never_read(engine, tmp_path):
    engine, root = engine
    outside = tmp_path / "outside" / "secret.csv"
    write(outside, "secret\nTOPSECRET\n")
    folder = root / "swap"
    write(folder / "data.csv", "id\n1\n")
    ns = engine.namespace("acme", "finance")
    link_id = ns.call("knowledge.link_dir", {"path": str(folder)})["link_id"]
    done = threading.Event()

    def swap() -> None:
        # 200 swaps of data.csv between a regular file and a symlink that leads out, each by rename
        for k in range(200):
            staged = folder / f".staged{k}"
            if k % 2:
                staged.symlink_to(outside)
            else:
                write(staged, f"id\n{k}\n")
            os.replace(staged, folder / "data.csv")
            time.sleep(0.002)
        done.set()

    swapper = threading.Thread(target=swap)
    swapper.start()
    while not done.is_set():
        ns.call("knowledge.retry_dir", {"link_id": link_id})
    swapper.join()
    ns.call("knowledge.retry_dir", {"link_id": link_id})
    assert not any(b"TOPSECRET" in data for data in stored_uploads(engine))


def test_a_hard_link_into_the_home_is_skipped(engine):
    engine, root = engine
    rival = engine.namespace("rival", "hr")
    rival.ingest_file(_csv(root.parent / "salaries.csv", "name,salary\nann,99999\n"), source_uri="salaries.csv")
    (upload,) = [p for p in engine.catalog.uploads_dir.iterdir() if p.is_file()]
    folder = root / "hard"
    folder.mkdir()
    os.link(upload, folder / "copy.csv")
    ns = engine.namespace("acme", "finance")
    link_id = ns.call("knowledge.link_dir", {"path": str(folder)})["link_id"]
    (file,) = ns.call("knowledge.dir_files", {"link_id": link_id})["files"]
    assert file["state"] == "skipped" and "hard link" in file["error_message"], file
    assert not ns.dataset_get("hard/copy.csv").found
    assert len(stored_uploads(engine)) == 1


def _csv(path: Path, text: str) -> Path:
    write(path, text)
    return path


def test_nothing_is_stored_for_a_file_the_full_queue_refuses(tmp_path):
    root = tmp_path / "root"
    for k in range(5):
        write(root / "many" / f"f{k}.csv", f"id\n{k}\n")
    # A queue with no room at all: every ingest is refused (as a full one refuses the next).
    with tabular.connect(str(tmp_path / "home"), link_roots=str(root), job_queue_per_org=0) as engine:
        ns = engine.namespace("acme", "finance")
        link_id = ns.call("knowledge.link_dir", {"path": str(root / "many")})["link_id"]
        for _ in range(3):
            ns.call("knowledge.retry_dir", {"link_id": link_id})
        files = ns.call("knowledge.dir_files", {"link_id": link_id})["files"]
        assert [f["state"] for f in files] == ["pending"] * 5
        assert stored_uploads(engine) == []


def test_a_link_refused_by_the_queue_after_the_copy_keeps_no_copy(tmp_path, monkeypatch):
    """The room is looked at before the copy; a refusal that comes after it anyway removes the copy."""
    root = tmp_path / "root"
    write(root / "one" / "f.csv", "id\n1\n")
    with tabular.connect(str(tmp_path / "home"), link_roots=str(root)) as engine:

        def refused_after_the_copy(ctx, body):
            raise Overloaded("ingest jobs of this org are waiting for a worker (job_queue_per_org)")

        monkeypatch.setattr("tabular.ops.links.ingest", refused_after_the_copy)
        ns = engine.namespace("acme", "finance")
        link_id = ns.call("knowledge.link_dir", {"path": str(root / "one")})["link_id"]
        assert [f["state"] for f in ns.call("knowledge.dir_files", {"link_id": link_id})["files"]] == ["pending"]
        # The follower's own scan may be between its copy and the refusal that removes it: none is kept.
        until(lambda: stored_uploads(engine) == [])
        assert stored_uploads(engine) == []
