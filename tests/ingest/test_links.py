"""Linked folders (issue 20): a real temporary folder, files added, changed, removed, renamed,
written slowly, broken; the folder unplugged and back; changes while nothing ran; the limits;
and two namespaces that never see each other's links."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import ROOT

import tabular
from tabular.errors import TabularError

SETTLE = 0.3  # seconds a file's mtime must be old before it is read (link_settle_seconds)


def write(path: Path, text: str, age: float = SETTLE + 1) -> None:
    """A file written whole, its mtime set `age` seconds back so that a scan takes it as settled."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    then = time.time() - age
    os.utime(path, (then, then))


def rows_csv(n: int, start: int = 0) -> str:
    return "id,amount\n" + "".join(f"{k},{k}.50\n" for k in range(start, start + n))


def settle(ns, link_id: str, seconds: float = 60) -> dict[str, dict]:
    """Look again until no file is pending; the files by path."""
    deadline = time.monotonic() + seconds
    ns.call("knowledge.retry_dir", {"link_id": link_id})
    while True:
        files = {f["path"]: f for f in ns.call("knowledge.dir_files", {"link_id": link_id})["files"]}
        if not any(f["state"] == "pending" for f in files.values()) or time.monotonic() > deadline:
            return files
        time.sleep(0.1)
        ns.call("knowledge.retry_dir", {"link_id": link_id})


def count(ns, source_uri: str) -> int:
    return ns.query({"datasets": [{"source_uri": source_uri}], "aggregates": [{"fn": "count"}]}).rows[0][0]


def refused(fn, code: str) -> TabularError:
    with pytest.raises(TabularError) as caught:
        fn()
    assert caught.value.code == code, (caught.value.code, caught.value.message)
    return caught.value


@pytest.fixture
def home(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    engine = tabular.connect(
        str(tmp_path / "home"), link_roots=str(root), link_settle_seconds=SETTLE, link_rescan_seconds=0.5
    )
    yield engine, engine.namespace("acme", "finance"), root
    engine.close()


def test_add_change_twice_remove_and_rename(home):
    engine, ns, root = home
    folder = root / "sales"
    write(folder / "jan.csv", rows_csv(3))
    write(folder / "deep" / "feb.csv", rows_csv(4))
    link = ns.call("knowledge.link_dir", {"path": str(folder)})
    assert link["label"] == "sales" and link["prefix"] == "sales/" and link["files"] == 2 and link["watching"]
    files = settle(ns, link["link_id"])
    assert {p: f["state"] for p, f in files.items()} == {"jan.csv": "learned", "deep/feb.csv": "learned"}
    assert files["deep/feb.csv"]["source_uri"] == "sales/deep/feb.csv" and count(ns, "sales/deep/feb.csv") == 4
    # changed twice: revisions 2 and 3, each answering the new content
    for revision, n in ((2, 5), (3, 7)):
        write(folder / "jan.csv", rows_csv(n))
        files = settle(ns, link["link_id"])
        assert files["jan.csv"]["revision"] == revision and count(ns, "sales/jan.csv") == n
    # a new revision that raises a question shows it; an approval carries over to the next one
    write(folder / "jan.csv", "id,when\n1,03/04/2024\n2,05/06/2024\n")
    files = settle(ns, link["link_id"])
    assert files["jan.csv"]["revision"] == 4 and files["jan.csv"]["open_questions"] == 1
    snapshot = ns.dataset_get("sales/jan.csv").datasets[0].snapshot_id
    ns.approve("sales/jan.csv", snapshot, formats={"when": "DMY"})
    write(folder / "jan.csv", "id,when\n1,03/04/2024\n2,05/06/2024\n3,07/08/2024\n")
    files = settle(ns, link["link_id"])
    # carried over without a question: the approval reads every value of the new revision
    assert files["jan.csv"]["revision"] == 5 and files["jan.csv"]["open_questions"] == 0
    carried = ns.dataset_get("sales/jan.csv").datasets[0]
    assert carried.questions == [] and {c.name: c.approved for c in carried.columns}["when"]
    write(folder / "jan.csv", rows_csv(7))
    settle(ns, link["link_id"])
    # touched, content unchanged: no new revision
    os.utime(folder / "jan.csv", (time.time() - 5, time.time() - 5))
    assert settle(ns, link["link_id"])["jan.csv"]["revision"] == 6
    # renamed: the new path keeps the source and its history
    (folder / "deep" / "feb.csv").rename(folder / "february.csv")
    files = settle(ns, link["link_id"])
    assert "deep/feb.csv" not in files and files["february.csv"]["source_uri"] == "sales/deep/feb.csv"
    assert files["february.csv"]["revision"] == 1 and count(ns, "sales/deep/feb.csv") == 4
    # removed: its source is deleted, and restorable
    (folder / "jan.csv").unlink()
    files = settle(ns, link["link_id"])
    assert "jan.csv" not in files and not ns.dataset_get("sales/jan.csv").found
    assert ns.call("knowledge.restore", {"source_uri": "sales/jan.csv"})["restored"] and count(ns, "sales/jan.csv") == 7


def test_a_file_written_slowly_is_read_once_whole(home):
    engine, ns, root = home
    link = ns.call("knowledge.link_dir", {"path": str(root)})
    path = root / "slow.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("id,amount\n")
        for k in range(6):  # a piece at a time, each younger than the settle time
            f.write(f"{k},{k}.25\n")
            f.flush()
            ns.call("knowledge.retry_dir", {"link_id": link["link_id"]})
            assert ns.call("knowledge.dir_files", {"link_id": link["link_id"]})["files"][0]["state"] == "pending"
            time.sleep(SETTLE / 3)
    time.sleep(SETTLE + 0.1)
    files = settle(ns, link["link_id"])
    assert (
        files["slow.csv"]["state"] == "learned"
        and files["slow.csv"]["revision"] == 1
        and count(ns, "root/slow.csv") == 6
    )


def test_broken_and_empty_files_say_why(home):
    engine, ns, root = home
    write(root / "good.csv", rows_csv(2))
    write(root / "empty.csv", "")
    (root / "broken.xlsx").write_bytes(b"PK\x03\x04 this is no workbook")
    os.utime(root / "broken.xlsx", (time.time() - 5, time.time() - 5))
    link = ns.call("knowledge.link_dir", {"path": str(root), "label": "mixed"})
    files = settle(ns, link["link_id"])
    assert files["good.csv"]["state"] == "learned"
    assert files["empty.csv"]["state"] == "no_table" and files["empty.csv"]["error_code"] == "no_text"
    assert files["broken.xlsx"]["state"] == "failed" and files["broken.xlsx"]["error_code"] == "format_unavailable"
    assert files["broken.xlsx"]["error_message"]
    failed = ns.call("knowledge.dir_files", {"link_id": link["link_id"], "state": "failed"})["files"]
    assert [f["path"] for f in failed] == ["broken.xlsx"]
    listed = ns.call("knowledge.list_dirs")["links"][0]
    assert listed["states"] == {"learned": 1, "pending": 0, "no_table": 1, "failed": 1, "skipped": 0}


def test_a_folder_removed_and_brought_back(home):
    engine, ns, root = home
    folder = root / "drive"
    write(folder / "a.csv", rows_csv(2))
    link = ns.call("knowledge.link_dir", {"path": str(folder)})
    settle(ns, link["link_id"])
    aside = root.parent / "unplugged"
    folder.rename(aside)
    gone = ns.call("knowledge.retry_dir", {"link_id": link["link_id"]})
    assert gone["missing"] and not gone["watching"]
    assert count(ns, "drive/a.csv") == 2  # an unplugged drive deletes nothing
    aside.rename(folder)
    write(folder / "b.csv", rows_csv(3))
    back = ns.call("knowledge.retry_dir", {"link_id": link["link_id"]})
    assert not back["missing"]
    deadline = time.monotonic() + 10  # the watch starts on its own thread: on a loaded machine, a moment later
    while not back["watching"] and time.monotonic() < deadline:
        time.sleep(0.1)
        back = ns.call("knowledge.retry_dir", {"link_id": link["link_id"]})
    assert back["watching"]
    files = settle(ns, link["link_id"])
    assert files["b.csv"]["state"] == "learned" and count(ns, "drive/b.csv") == 3


def test_changes_made_while_nothing_ran_are_caught_up_on_start(tmp_path):
    root = tmp_path / "root"
    write(root / "a.csv", rows_csv(2))
    settings = dict(link_roots=str(root), link_settle_seconds=SETTLE, link_rescan_seconds=30)
    with tabular.connect(str(tmp_path / "home"), **settings) as engine:
        ns = engine.namespace("acme", "finance")
        link_id = ns.call("knowledge.link_dir", {"path": str(root)})["link_id"]
        settle(ns, link_id)
    write(root / "a.csv", rows_csv(5))  # nothing runs
    write(root / "b.csv", rows_csv(1))
    with tabular.connect(str(tmp_path / "home"), watch_links=True, **settings) as engine:
        ns = engine.namespace("acme", "finance")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # no retry_dir: the watching process looks by itself
            files = {f["path"]: f for f in ns.call("knowledge.dir_files", {"link_id": link_id})["files"]}
            if files.get("b.csv", {}).get("state") == "learned" and files["a.csv"]["revision"] == 2:
                break
            time.sleep(0.2)
        assert files["a.csv"]["revision"] == 2 and count(ns, "root/a.csv") == 5 and count(ns, "root/b.csv") == 1


def test_a_watching_process_follows_new_files_by_itself(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with tabular.connect(
        str(tmp_path / "home"),
        link_roots=str(root),
        link_settle_seconds=SETTLE,
        link_rescan_seconds=30,
        watch_links=True,
    ) as engine:
        ns = engine.namespace("acme", "finance")
        link_id = ns.call("knowledge.link_dir", {"path": str(root)})["link_id"]
        (root / "new.csv").write_text(rows_csv(4), encoding="utf-8")  # a fresh mtime: read once settled
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            files = ns.call("knowledge.dir_files", {"link_id": link_id})["files"]
            if files and files[0]["state"] == "learned":
                break
            time.sleep(0.2)
        assert files[0]["state"] == "learned" and count(ns, "root/new.csv") == 4


def _learned(ns, link_id: str, path: str, seconds: float = 20) -> dict:
    """The file's row once learned (looking, never asking for a scan), or as it is at the deadline."""
    deadline = time.monotonic() + seconds
    while True:
        files = {f["path"]: f for f in ns.call("knowledge.dir_files", {"link_id": link_id})["files"]}
        if files.get(path, {}).get("state") == "learned" or time.monotonic() > deadline:
            return files.get(path, {})
        time.sleep(0.2)


def test_a_notebook_that_links_a_folder_follows_it_while_open(tmp_path):
    # An embedded engine said `watching: true` and learned nothing in 90 s (tabular serve: 4 s).
    # The process that links a folder follows it; files written just before the link, still
    # settling, are looked at again once settled, not at the next full rescan (60 s here).
    root = tmp_path / "root"
    root.mkdir()
    (root / "early.csv").write_text(rows_csv(3), encoding="utf-8")  # a fresh mtime: pending on settle
    with tabular.connect(str(tmp_path / "home"), link_roots=str(root), link_settle_seconds=SETTLE) as engine:
        assert not engine.settings.watch_links and engine.settings.link_rescan_seconds >= 60
        ns = engine.namespace("acme", "finance")
        link = ns.call("knowledge.link_dir", {"path": str(root)})
        assert link["watching"]
        assert _learned(ns, link["link_id"], "early.csv").get("state") == "learned"
        (root / "later.csv").write_text(rows_csv(4), encoding="utf-8")
        assert _learned(ns, link["link_id"], "later.csv").get("state") == "learned"
        assert count(ns, "root/later.csv") == 4


def test_watching_is_true_only_while_some_process_follows(tmp_path):
    root = tmp_path / "root"
    write(root / "a.csv", rows_csv(2))
    settings = dict(link_roots=str(root), link_settle_seconds=SETTLE)
    home = str(tmp_path / "home")
    follower = tabular.connect(home, **settings)
    link_id = follower.namespace("acme", "finance").call("knowledge.link_dir", {"path": str(root)})["link_id"]
    with tabular.connect(home, **settings) as looker:  # opened the home, linked nothing
        ns = looker.namespace("acme", "finance")
        assert ns.call("knowledge.list_dirs")["links"][0]["watching"] is True  # the follower follows
        follower.close()
        assert ns.call("knowledge.list_dirs")["links"][0]["watching"] is False
        # A file added now waits, said as such, until a process follows (or retry_dir looks).
        write(root / "b.csv", rows_csv(1))
        assert ns.call("knowledge.retry_dir", {"link_id": link_id})["watching"] is True  # retrying follows
    with tabular.connect(home, **settings) as later:
        assert later.namespace("acme", "finance").call("knowledge.list_dirs")["links"][0]["watching"] is False


def test_limits_refuse_a_link_or_pause_its_learning(tmp_path):
    root = tmp_path / "root"
    for k in range(3):
        write(root / "three" / f"{k}.csv", rows_csv(1))
    with tabular.connect(
        str(tmp_path / "home"),
        link_roots=str(root),
        link_settle_seconds=SETTLE,
        link_files_max=2,
        link_bytes_max=10_000,
        links_per_namespace=2,
    ) as engine:
        ns = engine.namespace("acme", "finance")
        err = refused(lambda: ns.call("knowledge.link_dir", {"path": str(root / "three")}), "TOO_MANY_FILES")
        assert "3" in err.message and "2" in err.message
        assert ns.call("knowledge.list_dirs")["links"] == []  # nothing watched
        write(root / "big" / "big.csv", rows_csv(2000))
        refused(lambda: ns.call("knowledge.link_dir", {"path": str(root / "big")}), "FOLDER_TOO_LARGE")
        write(root / "two" / "a.csv", rows_csv(1))
        link_id = ns.call("knowledge.link_dir", {"path": str(root / "two")})["link_id"]
        settle(ns, link_id)
        # over the limit after linking: paused, nothing more learned until it fits again
        write(root / "two" / "b.csv", rows_csv(1))
        write(root / "two" / "c.csv", rows_csv(1))
        link = ns.call("knowledge.retry_dir", {"link_id": link_id})
        assert link["learning_paused"] == {"reason": "too_many_files", "count": 3, "limit": 2} and not link["watching"]
        assert not ns.dataset_get("two/b.csv").found
        (root / "two" / "c.csv").unlink()
        link = ns.call("knowledge.retry_dir", {"link_id": link_id})
        assert link["learning_paused"] is None and settle(ns, link_id)["b.csv"]["state"] == "learned"
        write(root / "other" / "x.csv", rows_csv(1))
        ns.call("knowledge.link_dir", {"path": str(root / "other")})
        write(root / "third" / "x.csv", rows_csv(1))
        refused(lambda: ns.call("knowledge.link_dir", {"path": str(root / "third")}), "TOO_MANY_LINKS")


def test_a_link_belongs_to_its_namespace_and_stays_inside_the_allowed_roots(home, tmp_path):
    engine, ns, root = home
    write(root / "mine" / "a.csv", rows_csv(2))
    link_id = ns.call("knowledge.link_dir", {"path": str(root / "mine")})["link_id"]
    other = engine.namespace("rival", "finance")
    assert other.call("knowledge.list_dirs")["links"] == []
    for op in ("knowledge.dir_files", "knowledge.retry_dir", "knowledge.unlink_dir"):
        refused(lambda op=op: other.call(op, {"link_id": link_id}), "RESOURCE_NOT_FOUND")
    # the rival's attempts changed nothing here: the link and what it learned are still ours
    assert [link["link_id"] for link in ns.call("knowledge.list_dirs")["links"]] == [link_id]
    assert "a.csv" in settle(ns, link_id) and count(ns, "mine/a.csv") == 2
    assert not other.dataset_get("mine/a.csv").found
    # outside the root: an absolute path, `..`, and a symlink that leads out
    outside = tmp_path / "outside"
    write(outside / "secret.csv", rows_csv(1))
    (root / "escape").symlink_to(outside)
    for path in (str(outside), str(root / ".." / "outside"), str(root / "escape")):
        refused(lambda path=path: ns.call("knowledge.link_dir", {"path": path}), "PATH_NOT_ALLOWED")
    refused(lambda: ns.call("knowledge.link_dir", {"path": str(root / "nothing")}), "PATH_NOT_FOUND")
    refused(lambda: ns.call("knowledge.link_dir", {"path": "/"}), "DISK_ROOT")
    # a symlinked file inside that leads out is not read
    (root / "mine" / "leak.csv").symlink_to(outside / "secret.csv")
    assert "leak.csv" not in settle(ns, link_id)
    # unlinking leaves the folder and, unless asked, the sources
    assert ns.call("knowledge.unlink_dir", {"link_id": link_id}) == {
        "found": True,
        "sources_deleted": 0,
        "ignored_args": [],
    }
    assert (root / "mine" / "a.csv").exists() and count(ns, "mine/a.csv") == 2
    assert ns.call("knowledge.list_dirs")["links"] == []


def test_the_service_links_nothing_unless_its_roots_are_set(tmp_path):
    from fastapi.testclient import TestClient

    from tabular.service.http import create_app

    write(tmp_path / "data" / "a.csv", rows_csv(1))
    with (
        tabular.connect(str(tmp_path / "home"), link_roots="") as engine,
        TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as client,
    ):
        answer = client.post("/v1/knowledge.link_dir", json={"path": str(tmp_path / "data")})
        assert answer.status_code == 403 and answer.json()["detail"]["code"] == "PATH_NOT_ALLOWED", answer.json()


@pytest.mark.slow
def test_the_soak_of_500_files_learns_each_at_its_latest_content():
    """bench/links_soak.py at full size: 500 files of 1–500 KB over 60 s, 100 changed once."""
    import subprocess
    import sys

    bench = ROOT / "bench" / "links_soak.py"
    done = subprocess.run([sys.executable, str(bench)], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "500 files" in done.stdout and " 0 wrong" in done.stdout


def test_a_path_that_is_no_path_is_refused_not_a_crash(home):
    engine, ns, root = home
    for path in (str(root) + "/a\x00b", str(root) + "/" + "x" * 300):
        refused(lambda path=path: ns.call("knowledge.link_dir", {"path": path}), "PATH_NOT_FOUND")
    # ~ of no user is a path relative to the working directory, outside the roots as any other
    refused(lambda: ns.call("knowledge.link_dir", {"path": "~nosuchuser/x"}), "PATH_NOT_ALLOWED")


def test_a_file_past_max_local_file_bytes_fails_too_large_without_being_read(tmp_path):
    root = tmp_path / "root"
    write(root / "big" / "huge.csv", rows_csv(200))
    write(root / "big" / "small.csv", "id\n1\n")
    with tabular.connect(
        str(tmp_path / "home"), link_roots=str(root), link_settle_seconds=SETTLE, max_local_file_bytes=1000
    ) as engine:
        ns = engine.namespace("acme", "finance")
        link_id = ns.call("knowledge.link_dir", {"path": str(root / "big")})["link_id"]
        files = settle(ns, link_id)
        assert files["huge.csv"]["state"] == "failed" and files["huge.csv"]["error_code"] == "too_large"
        assert "max_local_file_bytes" in files["huge.csv"]["error_message"]
        assert "TABULAR_MAX_LOCAL_FILE_BYTES=" in files["huge.csv"]["error_message"]
        assert files["small.csv"]["state"] == "learned"


def test_a_scan_under_way_ends_at_its_next_file_when_the_linker_halts(tmp_path, monkeypatch):
    """What lets `tabular serve` stop within close_seconds while a link call scans (issue 30)."""
    import threading

    root = tmp_path / "root"
    for k in range(20):
        write(root / "many" / f"f{k:02d}.csv", f"id\n{k}\n")
    with tabular.connect(
        str(tmp_path / "home"), link_roots=str(root), link_jobs=20, link_settle_seconds=SETTLE
    ) as engine:
        linker = engine.context.links
        stored = []
        real = linker.scanner.ingest_stream

        def slow(*args):  # each file takes 0.5 s to store: 10 s for the folder
            time.sleep(0.5)
            stored.append(args[3])
            return real(*args)

        monkeypatch.setattr(linker.scanner, "ingest_stream", slow)
        ns = engine.namespace("acme", "finance")
        answered = []
        call = threading.Thread(
            target=lambda: answered.append(ns.call("knowledge.link_dir", {"path": str(root / "many")}))
        )
        call.start()
        time.sleep(1.2)
        linker.halt()
        call.join(10)  # a hang guard, not a timing: the folder alone would take 10 s
        assert answered, "the link call went on scanning after the halt"
        assert 1 <= len(stored) < 20  # it stopped among the 20 files, not after them
