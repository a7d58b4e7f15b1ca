"""tabular/ingest/uploads.py: bytes streamed to the uploads folder, hashed as they come and
recorded in the catalog; over the limit, the quota or the disk's room, nothing is kept."""

from __future__ import annotations

import errno
import hashlib
import io

import pytest

from tabular.errors import TooLarge
from tabular.ingest import uploads
from tabular.ingest.uploads import UploadWriter, discard_upload, no_room, store_upload, sweep_uploads
from tabular.settings import Settings
from tabular.store.catalog import stored_bytes, upload_row
from tabular.store.home import Catalog

DATA = b"id,amount\n1,12.50\n2,7.25\n"


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def files(home):
    return sorted(p.name for p in home.uploads_dir.iterdir())


def test_an_upload_is_stored_under_its_id_with_its_hash_and_recorded(home):
    out = store_upload(home, Settings(), "acme", "fin", io.BytesIO(DATA), "a.csv", "text/csv")
    assert (out.filename, out.bytes, out.sha256, out.content_type) == (
        "a.csv",
        len(DATA),
        hashlib.sha256(DATA).hexdigest(),
        "text/csv",
    )
    assert files(home) == [out.upload_id]
    assert (home.uploads_dir / out.upload_id).read_bytes() == DATA
    assert upload_row(home.conn(), out.upload_id, "acme", "fin")["filename"] == "a.csv"
    assert upload_row(home.conn(), out.upload_id, "rival", "fin") is None


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("../../etc/passwd", "passwd"), ("C:\\Users\\ann\\a.csv", "a.csv"), ("..", "upload"), ("a\x00.csv", "a.csv")],
)
def test_a_path_in_the_name_sent_is_never_a_path_here(home, sent, kept):
    out = store_upload(home, Settings(), "acme", "fin", io.BytesIO(DATA), sent, "text/csv")
    assert out.filename == kept
    assert files(home) == [out.upload_id]


def test_an_upload_over_the_limit_is_413_and_nothing_is_kept(home):
    with pytest.raises(TooLarge, match="max_upload_bytes"):
        store_upload(home, Settings(max_upload_bytes=10), "acme", "fin", io.BytesIO(DATA), "a.csv", "text/csv")
    assert files(home) == []
    assert stored_bytes(home.conn(), "acme") == 0


def test_an_upload_past_the_orgs_quota_is_413_and_another_org_is_not_counted(home):
    settings = Settings(org_storage_bytes=len(DATA) + 5)
    store_upload(home, settings, "acme", "fin", io.BytesIO(DATA), "a.csv", "text/csv")
    with pytest.raises(TooLarge, match="org_storage_bytes"):
        store_upload(home, settings, "acme", "fin", io.BytesIO(DATA), "b.csv", "text/csv")
    store_upload(home, settings, "rival", "fin", io.BytesIO(DATA), "b.csv", "text/csv")
    assert stored_bytes(home.conn(), "acme") == len(DATA)
    assert len(files(home)) == 2


def test_the_orgs_quota_is_kept_as_the_bytes_arrive(home):
    # The quota was checked once the whole file had arrived: a stream past it was written whole first.
    settings = Settings(org_storage_bytes=100)
    store_upload(home, settings, "acme", "fin", io.BytesIO(b"x" * 60), "a.csv", "text/csv")
    writer = UploadWriter(home, settings, org="acme")
    writer.write(b"y" * 30)  # 90 of 100: within the quota
    with pytest.raises(TooLarge, match="org_storage_bytes"):
        writer.write(b"y" * 20)  # the first chunk past it is refused, before it is written
    assert not writer.partial.exists()
    assert len(files(home)) == 1
    # Another org's room is its own.
    rival = UploadWriter(home, settings, org="rival")
    rival.write(b"z" * 100)
    rival.abort()


def test_a_full_disk_is_413_and_the_part_file_goes(home):
    writer = UploadWriter(home, Settings())

    def full(_chunk):
        raise OSError(errno.ENOSPC, "No space left on device")

    writer.out.write = full
    with pytest.raises(TooLarge, match="no room"):
        writer.write(DATA)
    assert files(home) == []


def test_no_room_knows_a_full_disk_from_other_failures():
    assert no_room(OSError(errno.ENOSPC, "x")) == "No space left on device"
    assert no_room(OSError(errno.EACCES, "x")) is None
    assert no_room(RuntimeError("IO Error: No space left on device")) == "No space left on device"
    assert no_room(RuntimeError("something else")) is None


def test_a_discarded_upload_loses_its_row_and_its_file(home):
    out = store_upload(home, Settings(), "acme", "fin", io.BytesIO(DATA), "a.csv", "text/csv")
    discard_upload(home, out.upload_id)
    assert files(home) == []
    assert upload_row(home.conn(), out.upload_id, "acme", "fin") is None


def test_a_sweep_removes_only_files_no_row_names(home):
    out = store_upload(home, Settings(), "acme", "fin", io.BytesIO(DATA), "a.csv", "text/csv")
    (home.uploads_dir / "u_orphan").write_bytes(DATA)
    part = home.uploads_dir / f"u_writing.{home.owner}.part"
    part.write_bytes(DATA)
    assert sweep_uploads(home) == 1
    assert files(home) == sorted([out.upload_id, part.name])


def test_a_local_file_is_stored_byte_for_byte_with_its_sha256(home, tmp_path):
    data = bytes(range(256)) * 40_000 + b"tail"
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    out = uploads.store_file(home, Settings(), "acme", "one", path, "big.bin", "application/octet-stream")
    assert (home.uploads_dir / out.upload_id).read_bytes() == data
    assert (out.sha256, out.bytes) == (hashlib.sha256(data).hexdigest(), len(data))
    assert upload_row(home.conn(), out.upload_id, "acme", "one") is not None  # recorded in its namespace


def test_a_local_file_the_kernel_will_not_copy_is_stored_the_streaming_way(home, tmp_path, monkeypatch):
    def refuse(*args):
        raise OSError(errno.EXDEV, "cross-device")

    monkeypatch.setattr(uploads.os, "copy_file_range", refuse)
    path = tmp_path / "f.csv"
    path.write_bytes(DATA * 1000)
    out = uploads.store_file(home, Settings(), "acme", "one", path, "f.csv", "text/csv")
    assert (home.uploads_dir / out.upload_id).read_bytes() == DATA * 1000
    assert out.sha256 == hashlib.sha256(DATA * 1000).hexdigest()
    assert files(home) == [out.upload_id]  # the refused copy left no part file


def test_a_local_file_that_changes_while_it_is_copied_is_stored_as_it_was_read(home, tmp_path, monkeypatch):
    path = tmp_path / "f.csv"
    path.write_bytes(DATA)
    real = uploads.os.copy_file_range

    def copy_then_append(*args):
        done = real(*args)
        with path.open("ab") as f:  # someone appends while the copy runs
            f.write(b"3,1.00\n")
        return done

    monkeypatch.setattr(uploads.os, "copy_file_range", copy_then_append)
    out = uploads.store_file(home, Settings(), "acme", "one", path, "f.csv", "text/csv")
    stored = (home.uploads_dir / out.upload_id).read_bytes()
    assert out.sha256 == hashlib.sha256(stored).hexdigest() and out.bytes == len(stored)
    assert files(home) == [out.upload_id]


def test_a_local_file_over_the_limit_is_refused_before_a_byte_is_copied(home, tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes(b"x" * 5000)
    with pytest.raises(TooLarge, match="5,000 bytes, over max_local_file_bytes"):
        uploads.store_file(home, Settings(max_local_file_bytes=4096), "acme", "one", path, "f.csv", "text/csv")
    assert files(home) == []
    # What a server receives is bounded apart: the same file is read by path past max_upload_bytes.
    out = uploads.store_file(home, Settings(max_upload_bytes=4096), "acme", "one", path, "f.csv", "text/csv")
    assert out.bytes == 5000
