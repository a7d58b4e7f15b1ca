"""How answers look to a person: HTML for a notebook (`_repr_html_`) and a one-line `__repr__`
for a prompt (and `print`), for every answer the Python API gives back. Values are shown as the
answer holds them (decimals as written, null dimmed), all text escaped; what a reader seldom needs
(SQL, parameters, snapshots, origin, job ids) is folded away.

The models call these from thin methods; nothing here reads storage or runs an op. `html` holds
the pieces; `answers` the answers about data (query, dataset_get, synthesize, approvals), `jobs`
an ingest's, `sources` the sources', linked folders' and a streamed result's.

Each name is imported from its module when first used (module-level `__getattr__`): a command
that shows one view does not load every view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy

if TYPE_CHECKING:
    from .answers import (
        History,
        approve_html,
        approve_repr,
        datasets_html,
        datasets_repr,
        history_html,
        history_repr,
        query_html,
        query_repr,
        synthesize_html,
        synthesize_repr,
    )
    from .html import CELL_CHARS, HTML_ROWS, clip, plural, size
    from .jobs import (
        ENDED,
        cancel_html,
        cancel_repr,
        formats_html,
        formats_repr,
        ingest_html,
        ingest_repr,
        jobs_html,
        jobs_repr,
        phase_words,
        status_html,
        status_repr,
        upload_html,
        upload_repr,
    )
    from .sources import (
        delete_html,
        delete_repr,
        dir_files_html,
        dir_files_repr,
        get_html,
        get_repr,
        link_html,
        link_repr,
        link_status,
        links_html,
        links_repr,
        restore_html,
        restore_repr,
        sources_html,
        sources_repr,
        unlink_html,
        unlink_repr,
        whole_html,
        whole_repr,
    )

# Each public name and the module of this package that defines it.
_HOMES = {
    **dict.fromkeys(
        [
            "History",
            "approve_html",
            "approve_repr",
            "datasets_html",
            "datasets_repr",
            "history_html",
            "history_repr",
            "query_html",
            "query_repr",
            "synthesize_html",
            "synthesize_repr",
        ],
        "answers",
    ),
    **dict.fromkeys(
        ["CELL_CHARS", "HTML_ROWS", "clip", "plural", "size"],
        "html",
    ),
    **dict.fromkeys(
        [
            "ENDED",
            "cancel_html",
            "cancel_repr",
            "formats_html",
            "formats_repr",
            "ingest_html",
            "ingest_repr",
            "jobs_html",
            "jobs_repr",
            "phase_words",
            "status_html",
            "status_repr",
            "upload_html",
            "upload_repr",
        ],
        "jobs",
    ),
    **dict.fromkeys(
        [
            "delete_html",
            "delete_repr",
            "dir_files_html",
            "dir_files_repr",
            "get_html",
            "get_repr",
            "link_html",
            "link_repr",
            "link_status",
            "links_html",
            "links_repr",
            "restore_html",
            "restore_repr",
            "sources_html",
            "sources_repr",
            "unlink_html",
            "unlink_repr",
            "whole_html",
            "whole_repr",
        ],
        "sources",
    ),
}

__all__ = [
    "CELL_CHARS",
    "ENDED",
    "HTML_ROWS",
    "History",
    "approve_html",
    "approve_repr",
    "cancel_html",
    "cancel_repr",
    "clip",
    "datasets_html",
    "datasets_repr",
    "delete_html",
    "delete_repr",
    "dir_files_html",
    "dir_files_repr",
    "formats_html",
    "formats_repr",
    "get_html",
    "get_repr",
    "history_html",
    "history_repr",
    "ingest_html",
    "ingest_repr",
    "jobs_html",
    "jobs_repr",
    "link_html",
    "link_repr",
    "link_status",
    "links_html",
    "links_repr",
    "phase_words",
    "plural",
    "query_html",
    "query_repr",
    "restore_html",
    "restore_repr",
    "size",
    "sources_html",
    "sources_repr",
    "status_html",
    "status_repr",
    "synthesize_html",
    "synthesize_repr",
    "unlink_html",
    "unlink_repr",
    "upload_html",
    "upload_repr",
    "whole_html",
    "whole_repr",
]


__getattr__, __dir__ = lazy(__name__, _HOMES, __all__)
