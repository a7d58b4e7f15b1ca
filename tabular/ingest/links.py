"""Linked folders: a directory whose readable files stay ingested, file by file (issue 20).

A link is a row in `catalog.links`; each file it has seen is a row in `catalog.link_files` with
its state: `learned` (its latest content is the live revision of its source), `pending` (new or
changed, waiting to be stable or for its ingest), `no_table` (read, and no table in it), `failed`
(its ingest failed: the code and message say why).

A scan compares the folder with those rows and acts on the difference:

- a new file is uploaded and ingested as the source `<prefix><path in the folder>`;
- a changed file (size or mtime differ, then its sha256 to be sure) is ingested again: the next
  revision of its source;
- a removed file's source is deleted (restorable with knowledge.restore);
- a file removed and one added with the same content is a rename: the new path takes the old
  file's source and its history, nothing is ingested again;
- a file whose mtime is younger than `link_settle_seconds` may still be being written: it waits
  (pending) for a later scan.

Scans run when a link is made or retried, when `dir_files`/`list_dirs` look (only job states are
refreshed then), and, in a process that watches (`tabular serve`, `tabular link --watch`), on
every change `watchfiles` reports, every `link_rescan_seconds` as a safety net, and at start, so
changes made while nothing ran are caught up. A link learns at most `link_jobs` files at once, so
a folder of thousands never floods the ingest queue other sources share.

What a link never reads (issue 30): anything but a regular file (a FIFO, a socket or a device is
`skipped`, with why); a file by any path but the one the walk saw, and never a second time by
path: it is opened once, component by component with no symlink followed (`O_NOFOLLOW`) and
without blocking (`O_NONBLOCK`), checked to be the walk's very file (device and inode), hashed and
copied into the upload store from that one descriptor, and the ingest reads the copy; a hard link
on the home's filesystem (it could be one of the home's files: another org's data); the home
itself, whatever the roots (a folder holding it is walked without it). What an org may read is
its link roots alone: another org's link of the same folder changes nothing of its answer (issue
53: refusing the second org told it the first had linked there). Each link has a lock of its
own, never held by another's scan, and a scan ends at its next file (or its next MiB) once the
linker stops.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from ..errors import (
    FolderTooLarge,
    RateLimited,
    TooLarge,
    TooManyFiles,
    TooManyLinks,
)
from ..settings import naming_the_change
from ..store.catalog import insert, job_status, now, update
from ..store.links import forget_link, forget_link_file, link_files, link_row, links_of
from .folders import (
    DEFAULT_PATTERNS,
    Home,
    Listing,
    Refused,
    Seen,
    Stopped,
    allowed_path,
    open_seen,
    sha256_of,
    walk,
)
from .follower import Follower

log = logging.getLogger(__name__)

STATES = ("learned", "pending", "no_table", "failed", "skipped")


class LinkFiles:
    """The rows of the links' files (catalog.link_files): each file's state, and why."""

    def __init__(self, catalog):
        self.catalog = catalog

    def pending(self, link_id: str, rel: str, s: Seen, was, prefix: str) -> None:
        """Seen but not read yet: still being written, or waiting for room in the queue."""
        if was is None:
            self.record(link_id, rel, Seen(rel, -1, -1), None, f"{prefix}{rel}", state="pending")
        elif was["state"] != "pending":
            cleared = {"error_code": None, "error_message": None} if was["state"] == "skipped" else {}
            with self.catalog.change() as cur:
                update(
                    cur,
                    "link_files",
                    {"link_id": link_id, "rel_path": rel},
                    state="pending",
                    ingestion_id=None,
                    **cleared,
                )

    def failed(self, link_id: str, rel: str, s: Seen, was, source_uri: str, code: str, message: str) -> None:
        """A file that will not be read as it is (its code and why), until it changes."""
        self.record(
            link_id, rel, s, was, source_uri, state="failed", ingestion_id=None, error_code=code, error_message=message
        )

    def record(self, link_id: str, rel: str, s: Seen, was, source_uri: str, **values) -> None:
        with self.catalog.change() as cur:
            if was is None:
                insert(
                    cur,
                    "link_files",
                    link_id=link_id,
                    rel_path=rel,
                    source_uri=source_uri,
                    size=s.size,
                    mtime_ns=s.mtime_ns,
                    **values,
                )
            else:
                update(
                    cur, "link_files", {"link_id": link_id, "rel_path": rel}, size=s.size, mtime_ns=s.mtime_ns, **values
                )

    def refresh(self, link_id: str) -> None:
        """Each pending file's ingest, looked up: learned, no_table or failed once it ended."""
        con = self.catalog.conn()
        row = link_row(con, link_id)
        for f in link_files(con, link_id, "pending"):
            if not f["ingestion_id"]:
                continue
            job = job_status(con, f["ingestion_id"], row["org"], row["namespace"])
            if job is None or job["state"] in ("pending", "processing"):
                continue
            if job["state"] in ("ready", "partial"):
                values = {
                    "state": "learned",
                    "revision": job["revision"],
                    "last_ingested_at": now(),
                    "error_code": None,
                    "error_message": None,
                }
            else:
                code = job["error_code"] or job["state"]
                values = {
                    "state": "no_table" if code == "no_text" else "failed",
                    "error_code": code,
                    "error_message": job["error_message"],
                }
            with self.catalog.change() as cur:
                update(cur, "link_files", {"link_id": link_id, "rel_path": f["rel_path"]}, ingestion_id=None, **values)


class Scanner:
    """Brings a link's sources up to its folder: walks it, compares the walk with the link's
    rows, and ingests, renames or deletes (the module's docstring)."""

    def __init__(self, catalog, settings, home: Home, ingest_stream, delete_source, stopping: threading.Event, say):
        # ingest_stream(org, namespace, stream, filename, source_uri, metadata) -> (ingestion_id,
        # sha256 of what it stored); RateLimited, with nothing stored, when the queue has no room.
        # delete_source(org, namespace, source_uri) -> whether a live source was deleted
        self.catalog, self.settings, self.home = catalog, settings, home
        self.ingest_stream, self.delete_source = ingest_stream, delete_source
        self.stopping, self.say = stopping, say
        self.files = LinkFiles(catalog)

    def scan(self, link_id: str) -> None:
        """Bring one link's sources up to its folder (see the module's docstring); the caller
        holds the link's lock."""
        row = link_row(self.catalog.conn(), link_id)
        if row is None:
            return
        root = Path(row["path"])
        if self.in_home(root):
            return  # linked by a version that let the home be linked: never read
        self.files.refresh(link_id)
        try:
            missing = not root.is_dir() or root.is_symlink()
        except OSError:
            missing = True
        if missing:
            if not row["missing"]:
                self.say(f"{row['label']}: the folder {root} is gone; its sources stay until retry_dir finds it again")
                with self.catalog.change() as cur:
                    update(cur, "links", {"link_id": link_id}, missing=True, last_scanned_at=now())
            return
        if row["missing"]:
            return  # waits for retry_dir: a drive plugged back in may not be whole yet
        listing = walk(root, json.loads(row["patterns"]), bool(row["recursive"]), self.home, self.stopping.is_set)
        paused = self._over_limit(listing.files)
        with self.catalog.change() as cur:
            update(cur, "links", {"link_id": link_id}, paused=paused, last_scanned_at=now())
        if paused:
            return
        self._follow(row, root, listing)

    def in_home(self, path) -> bool:
        return Path(path) == self.home.path or Path(path).is_relative_to(self.home.path)

    def _over_limit(self, seen: dict[str, Seen]) -> dict | None:
        total = sum(s.size for s in seen.values())
        if len(seen) > self.settings.link_files_max:
            return {"reason": "too_many_files", "count": len(seen), "limit": self.settings.link_files_max}
        if total > self.settings.link_bytes_max:
            return {"reason": "folder_too_large", "count": total, "limit": self.settings.link_bytes_max}
        return None

    def _digest(self, root: Path, seen: Seen) -> str | None:
        """The sha256 of the walk's file, read by one descriptor; None when it cannot be read now."""
        try:
            with os.fdopen(open_seen(root, seen), "rb") as stream:
                return sha256_of(stream, self.stopping.is_set)
        except (Refused, OSError):
            return None

    def _follow(self, link, root: Path, listing: Listing) -> None:
        """Act on the difference between the walk and the link's rows: what the walk skipped,
        files renamed or removed, then files new or changed (ingested, at most link_jobs at once)."""
        link_id = link["link_id"]
        seen = listing.files
        known = {f["rel_path"]: f for f in link_files(self.catalog.conn(), link_id)}
        settled = time.time_ns() - int(self.settings.link_settle_seconds * 1e9)
        stable = {rel for rel, s in seen.items() if s.mtime_ns <= settled}
        self._skipped(link, listing, known)
        self._moved(link, root, listing, known, stable)
        in_flight = sum(1 for f in link_files(self.catalog.conn(), link_id, "pending") if f["ingestion_id"])
        for rel, s in sorted(seen.items()):
            if self.stopping.is_set():
                raise Stopped()
            in_flight += self._learn(
                link, root, rel, s, known.get(rel), rel in stable and in_flight < self.settings.link_jobs
            )

    def _skipped(self, link, listing: Listing, known: dict) -> None:
        """What the walk would not read (not a regular file, …), recorded with why, once."""
        link_id = link["link_id"]
        for rel, (code, why) in sorted(listing.skipped.items()):
            was = known.get(rel)
            if was is None or (was["state"], was["error_message"]) != ("skipped", why):
                self.files.record(
                    link_id,
                    rel,
                    Seen(rel, -1, -1),
                    was,
                    was["source_uri"] if was is not None else f"{link['prefix']}{rel}",
                    state="skipped",
                    ingestion_id=None,
                    error_code=code,
                    error_message=why,
                )
                self.say(f"skipped {rel}: {why}")

    def _moved(self, link, root: Path, listing: Listing, known: dict, stable: set[str]) -> None:
        """Files gone from the folder: renamed (a stable new file with the content of one gone
        takes its source and history, nothing read again) or removed (its source deleted,
        restorable). `known` is updated for the renames."""
        link_id, org, namespace, seen = link["link_id"], link["org"], link["namespace"], listing.files
        gone = [known[rel] for rel in known if rel not in seen and rel not in listing.skipped]
        by_hash = {f["sha256"]: f for f in gone if f["sha256"]}
        for rel in sorted(set(seen) - set(known)):
            if rel in stable and by_hash and (old := by_hash.pop(self._digest(root, seen[rel]), None)) is not None:
                with self.catalog.change() as cur:
                    forget_link_file(cur, link_id, old["rel_path"])
                    insert(
                        cur,
                        "link_files",
                        **{**dict(old), "rel_path": rel, "size": seen[rel].size, "mtime_ns": seen[rel].mtime_ns},
                    )
                gone.remove(old)
                known[rel] = dict(old)
                self.say(f"renamed {old['rel_path']} → {rel} (source {old['source_uri']} kept)")
        for old in gone:
            self.delete_source(org, namespace, old["source_uri"])
            with self.catalog.change() as cur:
                forget_link_file(cur, link_id, old["rel_path"])
            self.say(f"removed {old['rel_path']}: source {old['source_uri']} deleted (restorable)")

    def _learn(self, link, root: Path, rel: str, s: Seen, was, now_ok: bool) -> int:
        """One file new or changed since the link's row of it (`was`): ingested now where
        `now_ok` (stable, and room among the link's ingests), else pending; 1 when an ingest
        started."""
        link_id, org, namespace = link["link_id"], link["org"], link["namespace"]
        if (
            was is not None
            and (was["size"], was["mtime_ns"]) == (s.size, s.mtime_ns)
            and was["state"] != "skipped"
            and not (was["state"] == "pending" and not was["ingestion_id"])
        ):
            return 0  # unchanged (or its ingest is under way)
        if was is not None and was["state"] == "pending" and was["ingestion_id"]:
            return 0  # changed again while its ingest runs: the next scan, once that one ends
        if not now_ok:
            self.files.pending(link_id, rel, s, was, link["prefix"])
            return 0
        source_uri = was["source_uri"] if was is not None else f"{link['prefix']}{rel}"
        limit = self.settings.max_local_file_bytes
        if limit and s.size > limit:  # never read: no upload could hold it
            why = naming_the_change(f"{s.size:,} bytes, over max_local_file_bytes ({limit:,})")
            self.files.failed(link_id, rel, s, was, source_uri, "too_large", why)
            return 0
        try:
            # One descriptor from here to the stored copy: the path is never opened again.
            with os.fdopen(open_seen(root, s), "rb") as stream:
                digest = sha256_of(stream, self.stopping.is_set)
                if was is not None and was["sha256"] == digest and was["state"] not in ("pending", "skipped"):
                    with self.catalog.change() as cur:  # touched, not changed
                        update(
                            cur,
                            "link_files",
                            {"link_id": link_id, "rel_path": rel},
                            size=s.size,
                            mtime_ns=s.mtime_ns,
                        )
                    return 0
                stream.seek(0)
                ingestion_id, digest = self.ingest_stream(
                    org,
                    namespace,
                    stream,
                    Path(rel).name,
                    source_uri,
                    {"linked_folder": link["label"], "path": rel},
                )
        except (RateLimited, Refused):
            # The queue is full (nothing was stored), or the file is not what the walk saw
            # (swapped meanwhile): a later scan.
            self.files.pending(link_id, rel, s, was, link["prefix"])
            return 0
        except TooLarge as err:  # no room to store it
            self.files.failed(link_id, rel, s, was, source_uri, "too_large", err.message)
            return 0
        except OSError as err:  # unreadable since the listing
            self.files.failed(link_id, rel, s, was, source_uri, "unreadable", str(err))
            return 0
        self.files.record(
            link_id,
            rel,
            s,
            was,
            source_uri,
            state="pending",
            ingestion_id=ingestion_id,
            sha256=digest,
            error_code=None,
            error_message=None,
        )
        self.say(f"{'changed' if was else 'new'} {rel}: ingesting as {source_uri}")
        return 1


class Linker:
    """The linked folders of one open home: links and unlinks them, scans one (its Scanner, under
    the link's own lock), and in a watching process follows them all (its Follower)."""

    def __init__(self, ctx, ingest_stream, delete_source):
        self.ctx, self.settings, self.catalog = ctx, ctx.settings, ctx.catalog
        self.home = Home.of(self.catalog.home, self.catalog.uploads_dir, self.catalog.snapshots_dir)
        # The roots an org may link in (a tokens file's per-org link_roots); None: the setting's.
        self.roots_for: Callable[[str], tuple[str, ...] | None] = lambda org: None
        self._locks: dict[str, threading.Lock] = {}  # one per link: no scan waits on another link's
        self._locks_guard = threading.Lock()
        self._making = threading.Lock()  # held only across the last check and the insert of a new link
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.events: list[str] = []  # what the last scans did, for `tabular link --watch` to print
        self.scanner = Scanner(
            self.catalog, self.settings, self.home, ingest_stream, delete_source, self._stop, self._say
        )
        self.follower = Follower(self.catalog, self.settings, self.scan, self.scanner.in_home, self._stop, self._wake)

    def _lock(self, link_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(link_id, threading.Lock())

    # -- links -------------------------------------------------------------------------

    def link(
        self,
        org: str,
        namespace: str,
        path: str,
        label: str,
        prefix: str | None,
        patterns: list[str] | None,
        recursive: bool,
    ) -> str:
        """A new link (or the same folder's existing one in this namespace), scanned once."""
        roots = self.roots_for(org)
        root = allowed_path(path, self.settings.link_roots_list() if roots is None else roots, self.home.path)
        if (linked := self._linked(org, namespace, root)) is not None:
            self.start()  # linked again (a notebook opened anew): this process follows it too
            return linked
        patterns = list(patterns or DEFAULT_PATTERNS)
        seen = walk(root, patterns, recursive, self.home).files
        total = sum(s.size for s in seen.values())
        if len(seen) > self.settings.link_files_max:
            raise TooManyFiles(
                f"{path!r} holds {len(seen):,} readable files; a link may hold {self.settings.link_files_max:,} (link_files_max)",
                count=len(seen),
                limit=self.settings.link_files_max,
            )
        if total > self.settings.link_bytes_max:
            raise FolderTooLarge(
                f"{path!r} holds {total:,} bytes of readable files; a link may hold {self.settings.link_bytes_max:,} (link_bytes_max)",
                count=total,
                limit=self.settings.link_bytes_max,
            )
        label = label or root.name
        link_id = f"l_{uuid.uuid4().hex[:16]}"
        with self._making:  # the same folder linked twice at once in one namespace: one link
            if (linked := self._linked(org, namespace, root)) is not None:
                return linked
            with self.catalog.change() as cur:
                insert(
                    cur,
                    "links",
                    link_id=link_id,
                    org=org,
                    namespace=namespace,
                    path=str(root),
                    label=label,
                    prefix=f"{label}/" if prefix is None else prefix,
                    patterns=patterns,
                    recursive=recursive,
                    created_at=now(),
                    missing=False,
                )
        self.scan(link_id)
        self.start()  # the process that links a folder follows it while it is open
        self._wake.set()
        return link_id

    def _linked(self, org: str, namespace: str, root: Path) -> str | None:
        """This namespace's link of the folder, if it has one; TOO_MANY_LINKS when it has room
        for no other. Only the caller's own namespace is looked at: another org's links of the
        folder change nothing here."""
        rows = links_of(self.catalog.conn(), org, namespace)
        for row in rows:
            if row["path"] == str(root):
                return row["link_id"]
        if len(rows) >= self.settings.links_per_namespace:
            raise TooManyLinks(
                f"this namespace has {self.settings.links_per_namespace} linked folders, the most it may have (links_per_namespace)",
                count=self.settings.links_per_namespace,
                limit=self.settings.links_per_namespace,
            )
        return None

    def unlink(self, link_id: str, delete_sources: bool) -> int:
        """Stop following a link; its sources stay unless asked. Answers the sources deleted."""
        con = self.catalog.conn()
        files = link_files(con, link_id)
        row = link_row(con, link_id)
        deleted = 0
        with self._lock(link_id):
            if delete_sources:
                for f in files:
                    deleted += bool(self.scanner.delete_source(row["org"], row["namespace"], f["source_uri"]))
            with self.catalog.change() as cur:
                forget_link(cur, link_id)
        with self._locks_guard:
            self._locks.pop(link_id, None)
        return deleted

    def scan(self, link_id: str) -> None:
        """Bring one link's sources up to its folder (see the module's docstring)."""
        with self._lock(link_id):
            try:
                self.scanner.scan(link_id)
            except Stopped:
                pass  # the linker is stopping; the next start scans again

    def refresh(self, link_id: str) -> None:
        """Each pending file's ingest, looked up: learned, no_table or failed once it ended."""
        self.scanner.files.refresh(link_id)

    def retry(self, link_id: str) -> None:
        """Look again at a folder that was missing (and at any folder: a full scan now)."""
        with self.catalog.change() as cur:
            update(cur, "links", {"link_id": link_id}, missing=False)
        self.scan(link_id)
        self.start()
        self._wake.set()

    def _say(self, event: str) -> None:
        log.info(event)
        self.events.append(event)
        del self.events[:-1000]

    # -- following (the Follower) ------------------------------------------------------

    def start(self) -> None:
        """Follow every link of the home in a thread (Follower.start)."""
        self.follower.start()

    def followed(self) -> bool:
        """Whether some process of the home follows its links now (Follower.followed)."""
        return self.follower.followed()

    def halt(self) -> None:
        """Tell every scan to end at its next file (or MiB read), and the watcher to stop; returns at once."""
        self.follower.halt()

    def stop(self) -> None:
        """Stop following: halt(), then wait up to close_seconds for the watcher to end."""
        self.follower.stop()

    def running(self) -> bool:
        """The watcher thread is still up (stop() gave up waiting for it)."""
        return self.follower.running()
