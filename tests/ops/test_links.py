"""tabular/ops/links.py: the linked-folder ops, each answering the link or its files as the catalog
holds them, and never another namespace's link."""

import os
import time

import pytest

import tabular
from tabular.errors import TabularError
from tabular.models import OpIn
from tabular.ops.links import (
    DirFilesIn,
    LinkDirIn,
    LinkIn,
    UnlinkDirIn,
    dir_files,
    link_dir,
    list_dirs,
    retry_dir,
    unlink_dir,
)

NS = {"org": "acme", "namespace": "finance"}
ELSEWHERE = {"org": "acme", "namespace": "sales"}


def write(path, text):
    """A file written whole, old enough to be read at the next look."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    then = time.time() - 5
    os.utime(path, (then, then))


@pytest.fixture
def home(tmp_path):
    root = tmp_path / "root"
    write(root / "sales" / "jan.csv", "id,amount\n1,2.50\n2,3.50\n")
    write(root / "sales" / "deep" / "feb.csv", "id\n1\n")
    with tabular.connect(str(tmp_path / "home"), link_roots=str(root), link_settle_seconds=0.3) as engine:
        yield engine.context, root


def settled(ctx, link_id, seconds=60):
    """The link's files once none is pending (looking again until then)."""
    deadline = time.monotonic() + seconds
    while True:
        retry_dir(ctx, LinkIn(**NS, link_id=link_id))
        files = dir_files(ctx, DirFilesIn(**NS, link_id=link_id)).files
        if not any(f.state == "pending" for f in files) or time.monotonic() > deadline:
            return files
        time.sleep(0.1)


def code(fn) -> str:
    with pytest.raises(TabularError) as err:
        fn()
    return err.value.code


def test_a_link_is_named_by_its_folder_and_counts_its_files(home):
    ctx, root = home
    link = link_dir(ctx, LinkDirIn(**NS, path=str(root / "sales")))
    assert (link.label, link.prefix, link.files, link.watching, link.missing) == ("sales", "sales/", 2, True, False)
    assert sum(link.states.values()) == 2
    again = link_dir(ctx, LinkDirIn(**NS, path=str(root / "sales"), label="other"))
    assert again.link_id == link.link_id  # the same folder is one link


def test_its_files_become_sources_under_the_prefix(home):
    ctx, root = home
    link = link_dir(ctx, LinkDirIn(**NS, path=str(root / "sales"), prefix="kb/"))
    files = {f.path: f for f in settled(ctx, link.link_id)}
    assert {p: (f.source_uri, f.state, f.revision) for p, f in files.items()} == {
        "jan.csv": ("kb/jan.csv", "learned", 1),
        "deep/feb.csv": ("kb/deep/feb.csv", "learned", 1),
    }
    assert files["jan.csv"].size == len("id,amount\n1,2.50\n2,3.50\n")
    assert dir_files(ctx, DirFilesIn(**NS, link_id=link.link_id, state="failed")).files == []
    [listed] = list_dirs(ctx, OpIn(**NS)).links
    assert listed.states["learned"] == 2


def test_another_namespace_neither_lists_nor_reaches_the_link(home):
    ctx, root = home
    link = link_dir(ctx, LinkDirIn(**NS, path=str(root / "sales")))
    assert list_dirs(ctx, OpIn(**ELSEWHERE)).links == []
    assert code(lambda: dir_files(ctx, DirFilesIn(**ELSEWHERE, link_id=link.link_id))) == "RESOURCE_NOT_FOUND"
    assert code(lambda: retry_dir(ctx, LinkIn(**ELSEWHERE, link_id=link.link_id))) == "RESOURCE_NOT_FOUND"
    assert code(lambda: unlink_dir(ctx, UnlinkDirIn(**ELSEWHERE, link_id=link.link_id))) == "RESOURCE_NOT_FOUND"


def test_a_folder_outside_the_roots_or_not_there_is_refused(home):
    ctx, root = home
    assert code(lambda: link_dir(ctx, LinkDirIn(**NS, path=str(root.parent)))) == "PATH_NOT_ALLOWED"
    assert code(lambda: link_dir(ctx, LinkDirIn(**NS, path=str(root / "gone")))) == "PATH_NOT_FOUND"


def test_unlinking_may_delete_the_sources_it_made(home):
    ctx, root = home
    link = link_dir(ctx, LinkDirIn(**NS, path=str(root / "sales")))
    settled(ctx, link.link_id)
    out = unlink_dir(ctx, UnlinkDirIn(**NS, link_id=link.link_id, delete_sources=True))
    assert (out.found, out.sources_deleted) == (True, 2)
    assert list_dirs(ctx, OpIn(**NS)).links == []
    assert (root / "sales" / "jan.csv").exists()  # the folder itself is untouched
