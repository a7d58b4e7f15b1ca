"""Uploads: bytes streamed to the home's uploads folder, hashed as they come, recorded in the
catalog; past a limit or the disk's room, nothing is kept."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO

from ..errors import TooLarge
from ..models import UploadOut
from ..settings import Settings
from ..store.catalog import forget_upload, insert, now, stored_bytes, upload_ids
from ..store.faults import unwritable
from ..store.home import Catalog
from .folders import sha256_of

# What a full disk or a file size limit (RLIMIT_FSIZE) raises on a write.
NO_SPACE = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def over_quota(quota: int) -> TooLarge:
    return TooLarge(
        f"the org's uploads would pass its storage quota (org_storage_bytes, {quota} bytes); delete sources or uploads first"
    )


def no_room(err: BaseException) -> str | None:
    """Why a write failed for want of room (Python's errno, or DuckDB's message naming it), or None."""
    if isinstance(err, OSError):
        return os.strerror(err.errno) if err.errno in NO_SPACE else None
    return next((os.strerror(n) for n in NO_SPACE if os.strerror(n) in str(err)), None)


class UploadWriter:
    """Bytes streamed to the uploads folder, hashed as they come; past the limit, nothing is kept.

    Fed chunk by chunk (`write`), so no transport ever holds a whole file in memory. Bytes
    received are bounded by max_upload_bytes; a `local` file read from this machine's disk by
    max_local_file_bytes (none by default, SPEC §5). Given the `org`, the org's storage quota is
    kept as the bytes arrive: the first chunk past the room it has left is refused.
    """

    def __init__(self, catalog: Catalog, settings: Settings, local: bool = False, org: str | None = None):
        self.catalog, self.settings = catalog, settings
        self.limit_name = "max_local_file_bytes" if local else "max_upload_bytes"
        self.limit = (settings.max_local_file_bytes or float("inf")) if local else settings.max_upload_bytes
        quota = settings.org_storage_bytes
        self.room = quota - stored_bytes(catalog.conn(), org) if quota and org is not None else float("inf")
        self.upload_id = "u_" + uuid.uuid4().hex
        self.partial = catalog.uploads_dir / f"{self.upload_id}.{catalog.owner}.part"  # the owner: see Catalog.sweep
        self.digest = hashlib.sha256()
        self.size = 0
        try:
            self.out = self.partial.open("wb")
        except OSError as err:  # a full or read-only home refuses even the file
            if err.errno in NO_SPACE:
                raise TooLarge(f"no room left to store the upload ({os.strerror(err.errno)})") from None
            raise unwritable(err, "nothing was kept") or err from None

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.limit:
            self.abort()
            raise self.too_large()
        if self.size > self.room:
            self.abort()
            raise over_quota(self.settings.org_storage_bytes)
        self.digest.update(chunk)
        self._disk(self.out.write, chunk)

    def too_large(self, size: int | None = None) -> TooLarge:
        what = "the file" if self.limit_name == "max_local_file_bytes" else "the upload"
        said = f"{what} is {size:,} bytes, over" if size is not None else f"{what} is over"
        return TooLarge(f"{said} {self.limit_name} ({self.limit:,} bytes)")

    def _disk(self, action, *args):
        """A write to the uploads folder (answers what `action` does); a full disk (or a file
        size limit) is 413, nothing kept."""
        try:
            return action(*args)
        except OSError as err:
            if err.errno not in NO_SPACE:
                cannot = unwritable(err, "nothing was kept")  # a read-only home: STORAGE_UNWRITABLE
                if cannot is None:
                    raise
                self.abort()
                raise cannot from None
            self.abort()
            raise TooLarge(f"no room left to store the upload ({os.strerror(err.errno)})") from None

    def abort(self) -> None:
        try:
            self.out.close()
        except OSError:  # the buffer could not be flushed: the disk is full, and the file goes anyway
            pass
        self.partial.unlink(missing_ok=True)

    def finish(self, org: str, namespace: str, filename: str, content_type: str, sha256: str = "") -> UploadOut:
        """Record the upload (`sha256`: its hash where it was taken apart from the writes)."""
        sha256 = sha256 or self.digest.hexdigest()
        self._disk(self.out.close)
        quota = self.settings.org_storage_bytes
        if quota and stored_bytes(self.catalog.conn(), org) + self.size > quota:
            self.abort()
            raise over_quota(quota)
        final = self.catalog.uploads_dir / self.upload_id
        # The last part of the name a client sent, by either separator, without NULs: the bytes
        # are stored under the upload id, and no name (`..`, `..\\x`) is ever a path here.
        name = re.split(r"[\\/]", filename.replace("\x00", ""))[-1]
        name = name if name.strip(".") else "upload"
        # The row first, then the file under its final name: a refused row (the catalog busy:
        # 503) leaves only the part file, removed here, and a file under uploads/ without its
        # row is never anyone's, so a restart sweeps it (sweep_uploads).
        try:
            insert(
                self.catalog.conn(),
                "uploads",
                upload_id=self.upload_id,
                org=org,
                namespace=namespace,
                filename=name,
                bytes=self.size,
                sha256=sha256,
                content_type=content_type,
                path=str(final),
                created_at=now(),
            )
        except BaseException:
            self.abort()
            raise
        try:
            self.partial.rename(final)
        except BaseException:
            with suppress(Exception):
                forget_upload(self.catalog.conn(), self.upload_id)
            self.abort()
            raise
        return UploadOut(
            upload_id=self.upload_id,
            filename=name,
            bytes=self.size,
            sha256=sha256,
            content_type=content_type,
        )


def store_upload(
    catalog: Catalog,
    settings: Settings,
    org: str,
    namespace: str,
    stream: BinaryIO,
    filename: str,
    content_type: str,
    local: bool = False,
) -> UploadOut:
    """Stream bytes to the uploads folder, hashing as they come; over the limit (UploadWriter's,
    by `local`, or past the org's storage quota), keep nothing."""
    writer = UploadWriter(catalog, settings, local, org)
    try:
        while chunk := stream.read(1 << 20):
            writer.write(chunk)
    except BaseException:
        writer.abort()
        raise
    return writer.finish(org, namespace, filename, content_type)


def store_file(
    catalog: Catalog, settings: Settings, org: str, namespace: str, path: Path, filename: str, content_type: str
) -> UploadOut:
    """A local file stored as an upload: copied by the kernel (copy_file_range: no bytes through
    Python) while a second thread hashes the file (folders.sha256_of), so the copy and the hash
    take the time of one.
    A file that changes meanwhile (its size or modification time moved) is stored the streaming
    way, which hashes the very bytes it writes; so is one the kernel will not copy."""
    before = path.stat()
    writer = UploadWriter(catalog, settings, local=True)
    if before.st_size > writer.limit:
        writer.abort()
        raise writer.too_large(before.st_size)
    # hashlib lets go of Python's lock while it hashes, so the hash runs beside the copy.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="upload-hash") as pool:
        hashed = pool.submit(_sha256_of, path)
        try:
            with path.open("rb") as source:
                copied = _copy(source, writer)
            digest = hashed.result()
        except BaseException:
            writer.abort()
            raise  # leaving the pool waits for the hash: no thread outlives the upload
    after = path.stat()
    if not copied or (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        writer.abort()
        with path.open("rb") as stream:
            return store_upload(catalog, settings, org, namespace, stream, filename, content_type, local=True)
    writer.size = before.st_size
    return writer.finish(org, namespace, filename, content_type, sha256=digest)


def _sha256_of(path: Path) -> str:
    with path.open("rb") as stream:
        return sha256_of(stream)


def _copy(source: BinaryIO, writer: UploadWriter) -> bool:
    """Copy the whole file into the writer's part file in the kernel; False when the kernel
    cannot (another filesystem that refuses, an old kernel), with nothing copied that counts."""
    size = os.fstat(source.fileno()).st_size
    done = 0
    try:
        while done < size:
            step = writer._disk(os.copy_file_range, source.fileno(), writer.out.fileno(), min(size - done, 64 << 20))
            if step == 0:
                return False  # the file shrank under us: stored the streaming way
            done += step
    except OSError as err:
        if err.errno in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EBADF):
            return False
        raise
    return True


def discard_upload(catalog: Catalog, upload_id: str) -> None:
    """Remove an upload nothing will read (its ingest was refused): its row, then its file. A row
    the busy catalog keeps names no file; expire_uploads forgets it."""
    with suppress(Exception):
        forget_upload(catalog.conn(), upload_id)
    (catalog.uploads_dir / upload_id).unlink(missing_ok=True)


def sweep_uploads(catalog: Catalog) -> int:
    """Remove the files under uploads/ that no catalog row names (left by a process that stopped
    between its file and its row, or by a version that stored the file first); answers how many.
    Part files are Catalog.sweep's. The files are listed before the catalog is read: a row is
    written before its file is named (UploadWriter.finish), so a file listed has its row by then."""
    listed = [p for p in catalog.uploads_dir.iterdir() if not p.name.endswith(".part")]
    if not listed:
        return 0
    named = upload_ids(catalog.conn())
    gone = 0
    for path in listed:
        if path.name not in named:
            path.unlink(missing_ok=True)
            gone += 1
    return gone
