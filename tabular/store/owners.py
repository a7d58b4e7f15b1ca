"""Who has a home open: each open home (a process) is an owner, named `<pid>-<random>`, and
holds a lock on `owners/<owner>.lock` while it is open. Files it is writing and jobs it runs
carry its name, so another process can tell whether they are still someone's."""

from __future__ import annotations

import fcntl
import os
import uuid
from contextlib import suppress
from pathlib import Path


class Owners:
    """The owners' folder of a home, and this open home's own name and lock."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.me = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        # Locked before it has its name: another process that looks for it finds it locked or not at all.
        forming = folder / f".{self.me}.forming"
        self._file = open(forming, "w")  # held open, and locked, until release
        fcntl.flock(self._file, fcntl.LOCK_EX)
        os.replace(forming, folder / f"{self.me}.lock")

    def alive(self, owner: str | None) -> bool:
        """Whether the open home `owner` still runs (a dead owner's lock file is removed)."""
        if not owner:
            return False
        if owner == self.me:
            return True
        path = self.folder / f"{owner}.lock"
        try:
            with open(path, "a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except FileNotFoundError:
            return False
        except OSError:
            return True  # its owner holds the lock
        path.unlink(missing_ok=True)  # ours now, and its owner is gone
        return False

    def release(self) -> None:
        """Let the home go: other processes then find this owner gone."""
        with suppress(OSError):
            (self.folder / f"{self.me}.lock").unlink(missing_ok=True)
            self._file.close()
