"""tabular/ingest/folders.py: which folders a link may watch (inside the allowed roots, never a
filesystem root or the home), the walk (regular files only, no symlink out, hidden and lock files
left out), and each file opened as the very file the walk saw."""

from __future__ import annotations

import hashlib
import io
import os

import pytest

from tabular.errors import DiskRoot, PathNotAllowed, PathNotFound
from tabular.ingest.folders import Home, Refused, Stopped, allowed_path, open_seen, sha256_of, walk


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "shared"
    (root / "sub").mkdir(parents=True)
    (root / "a.csv").write_text("id\n1\n")
    (root / "sub" / "b.xlsx").write_bytes(b"PK")
    (root / "notes.txt").write_text("not a table")
    (root / ".hidden.csv").write_text("id\n1\n")
    (root / "~$budget.xlsx").write_bytes(b"lock")
    return root.resolve()


def test_a_folder_inside_a_root_is_allowed_and_resolved(folder):
    assert allowed_path(str(folder / "sub"), (str(folder),)) == folder / "sub"
    assert allowed_path(str(folder / "sub" / ".." / "sub"), (str(folder),)) == folder / "sub"


def test_a_folder_outside_the_roots_is_not_allowed_even_before_it_is_known_to_exist(folder, tmp_path):
    with pytest.raises(PathNotAllowed, match="outside"):
        allowed_path(str(tmp_path / "elsewhere" / "nothing"), (str(folder),))
    with pytest.raises(PathNotAllowed, match="link_roots"):
        allowed_path(str(folder), ())


def test_a_symlink_leading_out_of_the_roots_is_not_allowed(folder, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "door").symlink_to(outside)
    with pytest.raises(PathNotAllowed):
        allowed_path(str(folder / "door"), (str(folder),))


def test_the_home_and_a_filesystem_root_are_never_linked(folder, tmp_path):
    with pytest.raises(PathNotAllowed) as home:
        allowed_path(str(folder / "sub"), (str(folder),), home=folder / "sub")
    with pytest.raises(PathNotAllowed) as outside:
        allowed_path(str(folder / "sub"), (str(tmp_path / "elsewhere"),))
    assert home.value.message == outside.value.message  # the home is not told apart
    with pytest.raises(DiskRoot):
        allowed_path("/", ("/",))


def test_a_missing_folder_or_a_file_is_not_found(folder):
    with pytest.raises(PathNotFound):
        allowed_path(str(folder / "nothing"), (str(folder),))
    with pytest.raises(PathNotFound, match="it is a file"):
        allowed_path(str(folder / "a.csv"), (str(folder),))
    with pytest.raises(PathNotFound):
        allowed_path(str(folder / "bad\x00path"), (str(folder),))


def test_the_walk_reads_matching_regular_files_and_leaves_hidden_and_lock_files_out(folder):
    assert sorted(walk(folder, ["*.csv", "*.xlsx"], recursive=True).files) == ["a.csv", "sub/b.xlsx"]
    assert sorted(walk(folder, ["*.csv", "*.xlsx"], recursive=False).files) == ["a.csv"]
    assert sorted(walk(folder, ["*.CSV"], recursive=True).files) == ["a.csv"]  # patterns ignore case


def test_the_walk_skips_what_is_no_regular_file_and_a_symlink_leading_out(folder, tmp_path):
    os.mkfifo(folder / "pipe.csv")
    secret = tmp_path / "secret.csv"
    secret.write_text("id\n1\n")
    (folder / "out.csv").symlink_to(secret)
    (folder / "in.csv").symlink_to(folder / "a.csv")
    listing = walk(folder, ["*.csv"], recursive=False)
    assert sorted(listing.files) == ["a.csv", "in.csv"]
    assert listing.files["in.csv"].target == "a.csv"
    assert listing.skipped["pipe.csv"][0] == "not_regular"


def test_the_walk_leaves_the_home_out(folder):
    listing = walk(folder, ["*.xlsx", "*.csv"], recursive=True, home=Home.of(folder / "sub"))
    assert sorted(listing.files) == ["a.csv"]


def test_a_file_is_opened_only_while_it_is_the_file_the_walk_saw(folder):
    seen = walk(folder, ["*.csv"], recursive=False).files["a.csv"]
    fd = open_seen(folder, seen)
    with os.fdopen(fd, "rb") as fh:
        assert fh.read() == b"id\n1\n"
    (folder / "a.new").write_text("swapped\n")
    os.replace(folder / "a.new", folder / "a.csv")  # another file under the same name
    with pytest.raises(Refused):
        open_seen(folder, seen)


def test_sha256_of_hashes_the_stream_and_stops_when_told():
    data = b"x" * 3_000_000
    assert sha256_of(io.BytesIO(data)) == hashlib.sha256(data).hexdigest()
    with pytest.raises(Stopped):
        sha256_of(io.BytesIO(data), stop=lambda: True)
