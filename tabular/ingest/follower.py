"""Following linked folders (ingest/links.py): a thread that scans every link of the home at
start, on each change `watchfiles` reports, and every `link_rescan_seconds` as a safety net, and
the marker (`owners/<owner>.watching`) that tells every process of the home someone follows."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..store.links import link_files, links_of

log = logging.getLogger(__name__)


class Follower:
    """Follows every link of the home in a thread: a full scan at start (what changed while
    nothing ran), then on each change `watchfiles` reports, and every `link_rescan_seconds`."""

    def __init__(
        self, catalog, settings, scan: Callable[[str], None], in_home, stopping: threading.Event, wake: threading.Event
    ):
        self.catalog, self.settings = catalog, settings
        self.scan, self.in_home = scan, in_home
        self.stopping, self.wake = stopping, wake
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        """Follow every link of the home in a thread: a full scan now (what changed while nothing
        ran), then on each change the folder reports, and every `link_rescan_seconds`. While it
        runs, `owners/<owner>.watching` tells every process of the home that someone follows."""
        if self.thread is None and not self.stopping.is_set():
            self.marker.touch()
            self.thread = threading.Thread(target=self._run, name="tabular-links", daemon=True)
            self.thread.start()

    @property
    def marker(self) -> Path:
        return self.catalog.owners_dir / f"{self.catalog.owner}.watching"

    def followed(self) -> bool:
        """Whether some process of the home follows its links now: this one's watcher, or another
        open home's (its marker, and its owner's lock held). A marker a process left when it died
        is removed here."""
        if self.running():
            return True
        for marker in self.catalog.owners_dir.glob("*.watching"):
            owner = marker.name.removesuffix(".watching")
            if owner != self.catalog.owner and self.catalog.alive(owner):
                return True
            if owner != self.catalog.owner:
                marker.unlink(missing_ok=True)
        return False

    def halt(self) -> None:
        """Tell every scan to end at its next file (or MiB read), and the watcher to stop; returns at once."""
        self.stopping.set()
        self.wake.set()

    def stop(self) -> None:
        """Stop following: halt(), then wait up to close_seconds for the watcher to end."""
        self.halt()
        if self.thread is not None:
            self.thread.join(timeout=self.settings.close_seconds)

    def running(self) -> bool:
        """The watcher thread is still up (stop() gave up waiting for it)."""
        return self.thread is not None and self.thread.is_alive()

    def _run(self) -> None:
        try:
            self._follow_all()
        finally:
            self.marker.unlink(missing_ok=True)

    def _follow_all(self) -> None:
        import watchfiles

        last_full, watched = 0.0, list[str]()
        while not self.stopping.is_set():
            links = [r for r in links_of(self.catalog.conn()) if not r["missing"]]
            due = time.monotonic() - last_full >= self.settings.link_rescan_seconds
            for row in links if due else ():
                self._scan_quietly(row["link_id"])
            if due:
                last_full = time.monotonic()
            # One watch per folder, however many links (of several orgs or namespaces) read it.
            paths = list(
                dict.fromkeys(r["path"] for r in links if Path(r["path"]).is_dir() and not self.in_home(r["path"]))
            )
            # Pending files are looked at again once settled; so is a folder just watched, since
            # what was written while its watcher started sends no event.
            busy = paths != watched or any(link_files(self.catalog.conn(), r["link_id"], "pending") for r in links)
            watched = paths
            wait_ms = int(1000 * (self.settings.link_settle_seconds if busy else self.settings.link_rescan_seconds))
            if not paths:
                self.wake.wait(max(wait_ms, 100) / 1000)
                self.wake.clear()
                continue
            self.wake.clear()
            changed: set[str] = set()
            stop = _Either(self.stopping, self.wake)
            for changes in watchfiles.watch(
                *paths,
                stop_event=stop,
                rust_timeout=max(wait_ms, 100),
                yield_on_timeout=True,
                debounce=200,
                raise_interrupt=False,
                recursive=True,
            ):
                changed = {c[1] for c in changes}
                break
            for row in links:
                if busy or any(p == row["path"] or p.startswith(row["path"].rstrip("/") + "/") for p in changed):
                    self._scan_quietly(row["link_id"])

    def _scan_quietly(self, link_id: str) -> None:
        try:
            self.scan(link_id)
        except Exception:  # one link's fault must not stop the others being followed
            log.exception("scanning link %s failed", link_id)


class _Either:
    """An event set when either of two is (watchfiles takes one stop event)."""

    def __init__(self, a: threading.Event, b: threading.Event):
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return self.a.is_set() or self.b.is_set()
