"""A linked folder walked and read safely: which paths a caller may link (the allowed roots, never
the home), the walk (regular files only, no symlink followed, the home left out, within the
limits), and each file opened once, by descriptor, checked to be the walk's very file and hashed
from it. The policy (what is read, and never read) is ingest/links.py's docstring."""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import (
    DiskRoot,
    PathNotAllowed,
    PathNotFound,
)
from ..read.formats import FORMATS

# What a link reads unless told: every extension a format is read from, but a bare `.gz`.
DEFAULT_PATTERNS = tuple(sorted({f"*{ext}" for f in FORMATS for ext in f.extensions if ext != ".gz"}))
KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symlink",
}
HARD_LINK = (
    "a hard link on the filesystem of the server's home: it could be one of the home's files "
    "(another org's data), so it is not read; copy the file into the folder instead"
)
# Open flags: a FIFO swapped in opens at once (and is refused by fstat), no component is followed.
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Folders by O_PATH where there is one: a folder one may pass through but not list (0711, as
# many home folders are) is crossed as a plain open would, and a symlink is still refused (ENOTDIR).
DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC


@dataclass(frozen=True)
class Seen:
    """A file as the folder shows it now: where it is, and which file it is (device, inode)."""

    rel_path: str
    size: int
    mtime_ns: int
    dev: int = 0
    ino: int = 0
    target: str = ""  # the path in the folder that is opened, when a symlink inside leads there


@dataclass
class Listing:
    """What a walk found: the regular files it reads, and the paths it skips with why."""

    files: dict[str, Seen] = field(default_factory=dict)
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)  # rel → (error_code, message)


class Refused(Exception):
    """The file is no longer the regular file the walk saw (swapped, a symlink now, a FIFO): it
    waits for the next scan, which sees what it is now."""


class Stopped(Exception):
    """The linker is stopping: the scan ends where it is."""


def kind(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "no regular file")


def refusal(path: str, roots: tuple[str, ...]) -> PathNotAllowed:
    """The one answer for every path a link may not watch: outside the roots, the home or inside
    it, there or not, a symlink or a loop. It echoes what the caller sent and names no server path
    (issue 53: the home's own message had told a writer where the home was, by elimination)."""
    if not any(roots):
        return PathNotAllowed(
            f"{path[:200]!r} may not be linked: this deployment allows no linked folders (the link_roots setting)"
        )
    return PathNotAllowed(
        f"{path[:200]!r} may not be linked: a link watches only a folder inside the link roots it is given "
        "(the link_roots setting, or the org's link_roots in the tokens file), never the server's own storage"
    )


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def allowed_path(path: str, roots: tuple[str, ...], home: Path | None = None) -> Path:
    """The folder a link may watch: it lies (symlinks resolved) inside one of the allowed roots,
    is not the home or inside it (whatever the roots), is no filesystem root, and exists; else
    the error that says which. Every path it may not watch gets one answer (`refusal`), given
    before whether the path exists is looked at: a caller learns nothing of folders outside its
    roots, the home's whereabouts among them."""
    given = os.path.abspath(os.path.expanduser(path))  # `~user` unknown stays as written
    if Path(given).parent == Path(given):
        raise DiskRoot(f"{path[:200]!r} is the root of a filesystem; link a folder inside it")
    allowed = [Path(r).expanduser().resolve() for r in roots if r]
    try:
        resolved = Path(given).resolve()
    except (ValueError, OSError, RuntimeError) as err:  # a NUL byte, a symlink loop
        if not _inside(Path(given), allowed):
            raise refusal(path, roots) from None
        why = err.strerror if isinstance(err, OSError) else "a symlink loop" if isinstance(err, RuntimeError) else err
        raise PathNotFound(f"{path[:200]!r} is no folder path ({why})") from None
    if not _inside(resolved, allowed) or (home is not None and _inside(resolved, [home])):
        raise refusal(path, roots)
    if resolved.parent == resolved:  # a root of "/" itself
        raise DiskRoot(f"{path[:200]!r} is the root of a filesystem; link a folder inside it")
    try:
        is_dir, exists = resolved.is_dir(), resolved.exists()
    except OSError as err:  # a name past the filesystem's limit, a folder it may not look into
        raise PathNotFound(f"{path[:200]!r} is no folder path ({err.strerror})") from None
    if not is_dir:
        raise PathNotFound(f"no folder {path[:200]!r}" + (" (it is a file)" if exists else ""))
    return resolved


@dataclass(frozen=True)
class Home:
    """What a walk keeps out: the home's folder (by device and inode, so a bind mount of it is
    known too) and the devices its files are on (a hard link there may be one of them)."""

    path: Path
    dev: int
    ino: int
    devices: frozenset[int]

    @classmethod
    def of(cls, home: Path, *folders: Path) -> Home:
        found = home.stat()
        return cls(home.resolve(), found.st_dev, found.st_ino, frozenset(f.stat().st_dev for f in (home, *folders)))


def walk(
    root: Path,
    patterns: list[str],
    recursive: bool,
    home: Home | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> Listing:
    """The files under `root` a link reads, by their path inside it. Hidden files and office
    lock files (`~$budget.xlsx`) are left out, and so are a symlink that leads out of the folder
    and the home; what is no regular file, or a hard link on the home's filesystem, is skipped
    with why. Folders are walked by descriptor (os.fwalk), so one swapped for a symlink
    while the walk runs is not followed; a FIFO is looked at, never opened."""
    listing = Listing()
    lowered = [p.lower() for p in patterns]
    for folder, dirs, files, dir_fd in os.fwalk(root, follow_symlinks=False):
        if stop():
            raise Stopped()
        dirs[:] = (
            sorted(d for d in dirs if not d.startswith(".") and not _is_home(d, dir_fd, home)) if recursive else []
        )
        for name in files:
            if name.startswith((".", "~$")) or not any(fnmatch.fnmatchcase(name.lower(), p) for p in lowered):
                continue
            rel = Path(os.path.relpath(Path(folder) / name, root)).as_posix()
            try:
                found, target = os.stat(name, dir_fd=dir_fd, follow_symlinks=False), ""
                if stat.S_ISLNK(found.st_mode):
                    resolved = (root / rel).resolve()
                    if not resolved.is_relative_to(root) or (home is not None and resolved.is_relative_to(home.path)):
                        continue
                    found, target = resolved.stat(), resolved.relative_to(root).as_posix()
            except (OSError, RuntimeError, ValueError):  # gone between the listing and the stat; a loop
                continue
            if not stat.S_ISREG(found.st_mode):
                listing.skipped[rel] = ("not_regular", f"{kind(found.st_mode)}: only regular files are read")
            elif home is not None and found.st_nlink > 1 and found.st_dev in home.devices:
                listing.skipped[rel] = ("hard_link", HARD_LINK)
            else:
                listing.files[rel] = Seen(rel, found.st_size, found.st_mtime_ns, found.st_dev, found.st_ino, target)
    return listing


def _is_home(name: str, dir_fd: int, home: Home | None) -> bool:
    if home is None:
        return False
    try:
        found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (home.dev, home.ino)


def open_seen(root: Path, seen: Seen) -> int:
    """A descriptor on the very file the walk saw: each folder of its path opened in turn from
    `/` with no symlink followed, the file without blocking, then checked (fstat) to be a regular
    file with the walk's device and inode. Refused when it is no longer that file; OSError when
    it cannot be read."""
    parts = [*root.parts[1:], *(seen.target or seen.rel_path).split("/")]
    fd = os.open("/", DIR_FLAGS)
    try:
        for part in parts[:-1]:
            inner = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        opened = os.open(parts[-1], FILE_FLAGS, dir_fd=fd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT, errno.ENXIO):
            raise Refused(f"{seen.rel_path} changed since the folder was listed ({err.strerror})") from None
        raise
    finally:
        os.close(fd)
    try:
        found = os.fstat(opened)
        if not stat.S_ISREG(found.st_mode) or (found.st_dev, found.st_ino) != (seen.dev, seen.ino):
            raise Refused(f"{seen.rel_path} is no longer the file the folder listed ({kind(found.st_mode)} now)")
    except BaseException:
        os.close(opened)
        raise
    return opened


def sha256_of(stream, stop: Callable[[], bool] = lambda: False) -> str:
    """The sha256 of what the stream holds from here on; Stopped once `stop()` says so."""
    digest = hashlib.sha256()
    while chunk := stream.read(1 << 20):
        if stop():
            raise Stopped()
        digest.update(chunk)
    return digest.hexdigest()
