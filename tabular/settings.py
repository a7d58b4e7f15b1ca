"""Every limit is a setting with a default (SPEC §5); environment variables override."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, fields, replace
from functools import cache

DEFAULT_NULL_MARKERS = ("", "NA", "N/A", "n/a", "na", "null", "NULL", "Null", "-", "#N/A", "None", "NaN", "nan")


class SettingInvalid(ValueError):
    """A setting no engine can run with; connect() answers it VALIDATION_FAILED at `settings.<name>`."""

    def __init__(self, name: str, message: str, expected: str, received):
        super().__init__(message)
        self.name, self.expected, self.received = name, expected, received


@dataclass(frozen=True)
class Settings:
    """Every setting of an engine, each a `TABULAR_<NAME>` environment variable (from_env)."""

    home: str = "./.tabular"
    default_org: str = "default"
    default_namespace: str = "default"
    # Bytes a server receives as one upload (HTTP, MCP): past it, 413 and nothing kept.
    max_upload_bytes: int = 256 * 1024 * 1024
    # A local file ingested by path (the Python API, the CLI, a linked folder's files) is read
    # from the disk, not received: bounded by this many bytes (0: no bound, SPEC §5).
    max_local_file_bytes: int = 0
    # Uploads no ingest names this long after they were made are deleted (0: kept for good).
    upload_keep_seconds: float = 7 * 24 * 3600.0
    # The bytes of uploads one org may keep (0: no quota); past it an upload is 413.
    org_storage_bytes: int = 0
    # A compressed upload may not inflate past this many bytes (a gzip bomb is refused, not read).
    max_inflated_bytes: int = 4 * 1024 * 1024 * 1024
    # ... nor, past 64 MiB, more than this many times its compressed size (decode.Budget).
    max_inflate_ratio: int = 250
    # Entries a zip of delimited text may list (it is read when it holds one file), and those a
    # workbook's zip may list; counted from the end-of-central-directory record before any
    # listing is parsed, whose bytes may average at most 1 KiB per entry allowed (decode.zip_listing).
    max_zip_entries: int = 1_000
    max_workbook_entries: int = 100_000
    result_limit_max: int = 10_000
    datasets_per_plan: int = 16  # ingested datasets read, nested plans' counted
    filters_per_plan: int = 100
    in_values_max: int = 1_000
    # Computed columns per plan, and the nodes one expression may take once written into SQL
    # (a computed column over several datasets, or over one joined left, is written out where it
    # is read; the others are read by name): past either the plan is 413 before it is compiled.
    computed_per_plan: int = 500
    computed_depth_max: int = 32
    expression_nodes_max: int = 10_000
    plan_nesting_max: int = 3  # plans as datasets inside plans, this deep at most
    # Plan shapes kept per home on the query side (ops/plancache.py): resolutions, compiled
    # statements and plan hashes, at most this many of each, the least recently used out; 0 keeps none.
    compiled_cache_entries: int = 512
    # A plan's compiled SQL past this many bytes is 413 (values travel apart, as parameters).
    max_sql_bytes: int = 1024 * 1024
    query_seconds: float = 30.0
    # A whole result streamed (export, to_polars(whole=True), query_export) may take this long.
    export_seconds: float = 3600.0
    # A whole result's receipt is answered by knowledge.receipt for this long (kept under the
    # home, so every process sharing it answers), in this many bytes at most (the oldest go first).
    receipt_seconds: float = 3600.0
    receipts_max_bytes: int = 256 * 1024 * 1024
    duckdb_memory: str = "60%"
    # A query is stopped with 413 TOO_LARGE when DuckDB holds more than this share of
    # duckdb_memory while it runs (the longest-running one), so the others go on.
    query_memory_share: float = 0.5
    # Snapshots kept per dataset across revisions and approvals; the serving ones are never dropped.
    snapshots_kept: int = 10
    # knowledge.list: sources per page at most.
    list_limit_max: int = 1_000
    null_markers: tuple[str, ...] = DEFAULT_NULL_MARKERS
    # A column whose non-null values read as one type at this share or more, but not all, is
    # held as string with a `mixed_values` question; below it, it is plainly a string column.
    mixed_values_share: float = 0.8
    # A column of more than this many non-null values has its `distinct` estimated (within 2%,
    # `distinct_estimated`) from a hash sample of its values rather than counted in full;
    # `unique` stays exact (store/snapshot.py).
    exact_distinct_values: int = 1_000_000
    csv_chunk_rows: int = 100_000
    # The fast reader parses this many bytes at a time (and progress moves by as much).
    csv_block_bytes: int = 1 << 20
    # Files this large and plainly regular are read by Arrow's parallel CSV reader (read/extraction.py).
    fast_path_bytes: int = 1 << 20
    # The one pass has DuckDB's parallel CSV reader read such a file (read/duckcsv.py); off, Arrow's
    # stream feeds DuckDB as before. Either gives the same snapshot.
    parallel_csv: bool = True
    # ... for tables this wide at most: past it Arrow's stream was as fast or faster (250 and 500
    # columns: 8% faster, 10% less memory; 16 columns, TPC-H lineitem SF 1: DuckDB's 9.5 s to 14.8 s).
    parallel_csv_max_columns: int = 100
    # Bytes DuckDB's reader holds per buffer (its default, 32 MiB, cost 140 MB more at SF 1 for
    # no speed); a line longer than half of it is refused, and Arrow's stream reads the file.
    parallel_csv_buffer_bytes: int = 4 << 20
    # The one pass (onepass.py) types a delimited file on its first rows, at most this many
    # cells of them (and at most 20,000 rows): a wide table is sampled on fewer rows.
    typing_sample_cells: int = 1_000_000
    # How often a running ingest writes its progress (ingest_status) and looks for a cancel.
    progress_seconds: float = 0.5
    # A table wider than this is refused (too_large): DuckDB statements over thousands of
    # columns grow past what one process should plan.
    max_columns: int = 1_000
    # A workbook's parts (sheet XML, shared strings …) may not inflate past this many bytes in
    # all, as their zip headers declare them (a decompression bomb is refused before parsing;
    # a header that understates a part fails its checksum as damaged).
    max_workbook_xml_bytes: int = 1024 * 1024 * 1024
    # Workbooks whose parts inflate past this are read by the fast reader (read/sheets/columnar.py)
    # whatever their compressed size: openpyxl holds every cell of a sheet in memory.
    sheet_fast_inflated_bytes: int = 64 * 1024 * 1024
    # A single cell of delimited text past this is refused too_large.
    max_cell_bytes: int = 32 * 1024 * 1024
    # A line of delimited text longer than this fails too_large before it is parsed.
    max_line_bytes: int = 32 * 1024 * 1024
    # Cells a sheet may span (rows × columns of its filled area) to be read in memory.
    max_sheet_cells: int = 20_000_000
    # Values (repeats counted) an ODS whose grids pass max_sheet_cells may hold: it is then read
    # from its filled cells (read/sheets/odsxml.py): a million took 26 s and 610 MB.
    max_sparse_values: int = 1_000_000
    # Workbooks this large are read by fastexcel (read/sheets/columnar.py): fast, but blind to merged cells.
    sheet_fast_bytes: int = 2 << 20
    # Bytes of text the sniffer reads to settle the dialect and the header.
    sniff_bytes: int = 256 * 1024
    # Tables one delimited file is read into (a blank line, then a header of their own: a
    # summary under the data, read/tables.py); past this many, the rest is read as the last one's
    # rows. Each table's read starts by reading past the lines before it.
    max_tables_per_file: int = 32
    # knowledge.synthesize: an OpenAI-compatible chat endpoint proposes plans when a base URL is
    # set (TABULAR_LLM_BASE_URL, TABULAR_LLM_API_KEY, TABULAR_LLM_MODEL); else the built-in does.
    llm_base_url: str = ""
    llm_api_key: str = ""
    llm_model: str = ""
    llm_seconds: float = 60.0
    # knowledge.synthesize answers a reading only when its confidence is at or above the threshold
    # measured to keep the wrong rate among the answered at most this (an upper bound at 90%,
    # measured on held-out questions; confidence.json): below it the answer abstains low_confidence.
    synthesize_max_wrong: float = 0.02
    # The service (`tabular serve`): loopback unless told otherwise, since without a tokens
    # file (TABULAR_TOKENS) every caller is the single user.
    host: str = "127.0.0.1"
    # JSON and NDJSON files nesting deeper than this fail too_large (flattening walks each level).
    max_json_depth: int = 64
    # An op's input nesting deeper than this is refused (422) before any op sees it.
    max_input_depth: int = 64
    port: int = 8765
    tokens: str = ""
    # How often the tokens file is looked at for changes (a removed token stops working then).
    tokens_check_seconds: float = 2.0
    # The page's sign-in (/ui): a session lasts this long, and one token holds at most this many
    # at once (a sign-in past it ends that token's oldest).
    ui_session_seconds: float = 12 * 3600.0
    ui_sessions_per_token: int = 20
    # Ingest jobs: worker threads, jobs that may wait beyond them (more is 503 OVERLOADED), and
    # how many times a job interrupted by a crash is started before it fails retries_exhausted.
    ingest_workers: int = 3
    job_queue: int = 64
    job_attempts: int = 3
    # Fair shares between orgs: one org runs at most this many jobs at once (so a worker is free
    # for another org's next job) and queues at most `job_queue_per_org`; orgs take turns.
    ingest_workers_per_org: int = 2
    job_queue_per_org: int = 16
    # A job running longer than this is stopped and fails too_large; a cancel stops one within
    # about `job_watch_seconds`.
    job_seconds: float = 1800.0
    job_watch_seconds: float = 0.25
    # knowledge.ingest_cancel waits this long for a running job to stop before it answers.
    cancel_wait_seconds: float = 2.0
    # Whether this process takes up the jobs other processes left pending or interrupted
    # (`tabular serve` and `tabular worker` do; a notebook or a one-off CLI call runs only its own).
    take_up_jobs: bool = False
    # How long closing an engine waits for its running jobs to stop (they are interrupted and
    # put back to pending, to be finished by the next process that takes up jobs).
    close_seconds: float = 10.0
    # How often a process that takes up jobs looks for jobs whose process died meanwhile.
    take_up_seconds: float = 5.0
    # How long a catalog write waits for another process's write to commit before 503 OVERLOADED
    # (writes hold the catalog only for their catalog rows: snapshot files are written before).
    catalog_wait_seconds: float = 30.0
    # A snapshot file retention dropped stays this long, for readers that resolved it just before.
    dropped_grace_seconds: float = 60.0
    # Op calls served at once over HTTP; more wait up to `overload_wait_seconds`, then 503.
    max_inflight: int = 64
    # ... and of one org at once (the rest of that org's calls wait, then 503; other orgs' do not).
    max_inflight_per_org: int = 8
    overload_wait_seconds: float = 5.0
    retry_after_seconds: int = 2
    # A JSON body (a plan, an op's input) past this is 413; files go to knowledge.upload raw.
    max_body_bytes: int = 16 * 1024 * 1024
    # A request's URL (path and query) past this is 413; a request line or headers the HTTP
    # parser cannot read at all (far longer, or malformed) is 400, both in the SPEC's envelope.
    max_url_bytes: int = 16 * 1024
    # Where knowledge.query runs plans: "duckdb" (embedded) or "clickhouse". ClickHouse reads
    # the snapshots as Parquet exported to `snapshot_export` (a directory or an object-store URL;
    # '' is <home>/exports) and loaded once into `clickhouse_database`. `clickhouse_host` names
    # a server (reached with clickhouse-connect over HTTP), or "chdb": the in-process engine.
    query_engine: str = "duckdb"
    snapshot_export: str = ""
    clickhouse_host: str = "chdb"
    clickhouse_port: int = 8123
    clickhouse_user: str = "default"
    clickhouse_password: str = ""
    clickhouse_database: str = "tabular"
    clickhouse_secure: int = 0  # 1: HTTPS

    # Linked folders (links.py): the folders links may watch (os.pathsep-separated; empty: none.
    # `connect()` for the CLI and Python defaults it to the working directory; `tabular serve`
    # to TABULAR_LINK_ROOTS alone), and their limits.
    link_roots: str = ""
    links_per_namespace: int = 20
    link_files_max: int = 10_000
    link_bytes_max: int = 10 * 1024 * 1024 * 1024
    # A file whose mtime is younger than this may still be being written: it waits.
    link_settle_seconds: float = 2.0
    # A full rescan of every link this often, beside the change events (the safety net).
    link_rescan_seconds: float = 60.0
    # Ingests one link has under way at once (the rest wait their turn, pending).
    link_jobs: int = 8
    # Whether this process follows its links in a thread (`tabular serve`, `tabular link --watch`).
    watch_links: bool = False

    def link_roots_list(self) -> tuple[str, ...]:
        return tuple(r for r in self.link_roots.split(os.pathsep) if r)

    def nulls(self, options: dict) -> tuple[str, ...]:
        """The texts read as null: an ingest's own `null_values`, else this setting."""
        return tuple(options.get("null_values") or self.null_markers)

    def __post_init__(self):
        # A setting that cannot hold is refused where it is set, naming it, on every surface
        # (each reaches here: connect() answers it VALIDATION_FAILED at `settings.<name>`):
        # ingest_workers=0 once started one worker anyway, a negative bound refused every file,
        # and NaN seconds compared false with every clock.
        for f in fields(self):
            value = _checked(f.name, getattr(self, f.name), _DEFAULTS[f.name])
            object.__setattr__(self, f.name, value)

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        """Defaults, then `TABULAR_<FIELD>` environment variables, then explicit overrides."""
        values = {}
        for f in fields(cls):
            raw = os.environ.get(f"TABULAR_{f.name.upper()}")
            if raw is None:
                continue
            values[f.name] = _parsed(f.name, raw, _DEFAULTS[f.name])
        unknown = sorted(set(overrides) - set(_DEFAULTS))
        if unknown:
            name = unknown[0]
            expected = "a setting's name" + (f" (did you mean {', '.join(close)}?)" if (close := _close(name)) else "")
            raise SettingInvalid(name, f"no setting {name!r}", expected, name)
        return replace(cls(**values), **overrides)


def _close(name: str) -> list[str]:
    """The settings a misspelt name may mean."""
    import difflib  # light; only for a name no setting has

    return difflib.get_close_matches(name, list(_DEFAULTS), n=3)


def _parsed(name: str, raw: str, default):
    """The text of TABULAR_<NAME> as the setting's type: a flag only in the words people write
    for one (`ture` is refused, not read as false), a number as Python reads it."""
    variable = f"setting {name}: TABULAR_{name.upper()}"
    if isinstance(default, bool):
        word = raw.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        expected = "one of " + ", ".join(_TRUE + _FALSE)
        raise SettingInvalid(name, f"{variable}={raw!r} is not a flag; expected {expected}", expected, raw)
    if isinstance(default, tuple):
        # A list of texts as JSON (TABULAR_NULL_MARKERS='["", "NA", "-"]'): a text may hold a
        # comma or a space, so no separator could say them all.
        try:
            listed = json.loads(raw)
        except ValueError:
            listed = None
        if not isinstance(listed, list) or not all(isinstance(v, str) for v in listed):
            expected = 'a JSON list of texts, like ["", "NA", "-"]'
            raise SettingInvalid(name, f"{variable}={raw!r} is not {expected}", expected, raw)
        return tuple(listed)
    if isinstance(default, (int, float)):
        kind = type(default)
        try:
            return kind(raw.strip())
        except ValueError:
            expected = "an integer" if kind is int else "a number"
            raise SettingInvalid(name, f"{variable}={raw!r} is not {expected}", expected, raw) from None
    return raw


def _checked(name: str, value, default):
    """`value` for setting `name`, in its default's type (a whole float as an int; a list of
    null markers as a tuple), or SettingInvalid saying what was expected."""
    variable = f"TABULAR_{name.upper()}"

    def refused(expected: str) -> SettingInvalid:
        return SettingInvalid(name, f"setting {name} is {value!r}; it must be {expected} ({variable})", expected, value)

    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise refused("true or false")
        return value
    if isinstance(default, (int, float)):
        number = _number(value, integer=isinstance(default, int))
        if number is None:
            raise refused("an integer" if isinstance(default, int) else "a finite number")
        low, high = _bounds(name)
        if not low <= number <= high or (number == 0 and name in _ABOVE_ZERO):
            raise refused(_said(name, low, high))
        return number
    if isinstance(default, tuple):
        if isinstance(value, str) or not isinstance(value, (tuple, list)) or not all(isinstance(v, str) for v in value):
            raise refused("a list of texts")
        return tuple(value)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)  # a path (tokens, link_roots, snapshot_export) as its text
    if not isinstance(value, str):
        raise refused("a text")
    if name in _CHOICES and value not in _CHOICES[name]:
        raise refused("one of " + ", ".join(_CHOICES[name]))
    if name == "duckdb_memory" and not _memory_ok(value):
        raise refused("a share of the machine's memory (60%) or a size (512MB, 4GB, 2GiB)")
    if name == "host" and not value.strip():
        raise refused("an address to listen on (127.0.0.1, 0.0.0.0, ::1)")
    return value


def _number(value, integer: bool) -> int | float | None:
    """A finite number (an int where `integer`, a whole float taken as one), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):  # any size: an int past a float's range is a number too large, never an error
        return value
    if not math.isfinite(value):
        return None
    if integer:
        return int(value) if float(value).is_integer() else None
    return value


def _bounds(name: str) -> tuple[float, float]:
    if name in _PORTS:
        return 1, 65_535
    if name in _SHARES:
        return 0, 1
    if name in _CHOICES_OF_NUMBERS:
        return min(_CHOICES_OF_NUMBERS[name]), max(_CHOICES_OF_NUMBERS[name])
    return (1 if name in _AT_LEAST_ONE else 0), math.inf


def _said(name: str, low: float, high: float) -> str:
    if name in _PORTS:
        return "a port from 1 to 65535"
    if name in _SHARES:
        return "a share above 0 and at most 1" if name in _ABOVE_ZERO else "a share from 0 to 1"
    if name in _CHOICES_OF_NUMBERS:
        return " or ".join(map(str, _CHOICES_OF_NUMBERS[name]))
    if name in _ABOVE_ZERO:
        return "more than 0"
    return f"at least {low:g}"


def _memory_ok(value: str) -> bool:
    """DuckDB's memory limit as store/home reads it: a share (`60%`) or a size (`4GB`), above 0."""
    found = _MEMORY.fullmatch(value)
    if found is None:
        return False
    number = float(found.group(1))
    return 0 < number <= 100 if found.group(2) == "%" else number > 0


# Each setting's declared default, whose type the setting's value takes.
_DEFAULTS = {f.name: f.default for f in fields(Settings)}

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")

# Counts of things that must exist for the engine to work at all, and sizes a zero would make
# refuse every file, plan or call.
_AT_LEAST_ONE = frozenset(
    {
        "ingest_workers",
        "ingest_workers_per_org",
        "job_attempts",
        "ui_sessions_per_token",
        "link_jobs",
        "max_inflight",
        "max_inflight_per_org",
        "max_upload_bytes",
        "max_inflated_bytes",
        "max_inflate_ratio",
        "max_zip_entries",
        "max_workbook_entries",
        "max_workbook_xml_bytes",
        "result_limit_max",
        "datasets_per_plan",
        "expression_nodes_max",
        "max_sql_bytes",
        "list_limit_max",
        "csv_chunk_rows",
        "csv_block_bytes",
        "parallel_csv_buffer_bytes",
        "typing_sample_cells",
        "max_columns",
        "max_cell_bytes",
        "max_line_bytes",
        "sniff_bytes",
        "max_tables_per_file",
        "max_json_depth",
        "max_input_depth",
        "max_body_bytes",
        "max_url_bytes",
    }
)
# Times and shares a zero makes useless: every query or job out of time at once, a watch that
# never waits, no memory for any query. (A zero elsewhere means none: no bound, no wait, kept for good.)
_ABOVE_ZERO = frozenset(
    {
        "query_seconds",
        "export_seconds",
        "llm_seconds",
        "job_seconds",
        "ui_session_seconds",
        "job_watch_seconds",
        "take_up_seconds",
        "link_rescan_seconds",
        "query_memory_share",
        "mixed_values_share",
    }
)
_SHARES = frozenset({"query_memory_share", "mixed_values_share", "synthesize_max_wrong"})
_PORTS = frozenset({"port", "clickhouse_port"})
_CHOICES = {"query_engine": ("duckdb", "clickhouse")}
_CHOICES_OF_NUMBERS = {"clickhouse_secure": (0, 1)}
# The forms store/connections.memory_size and as_bytes read, and DuckDB takes: a share, or a size
# with a unit (a bare number or bytes would give DuckDB a limit no query fits in).
_MEMORY = re.compile(r"([0-9]+(?:\.[0-9]+)?) ?(%|[KMGT]i?B)", re.IGNORECASE)


@cache
def _named() -> re.Pattern[str]:
    """The settings a refusal may name: every one whose name is no single word (a word such as
    `home` could stand in any message). Compiled when a refusal is first said, not at import: an
    alternation of every setting's name takes the regex compiler longer than any command that
    refuses nothing should wait (issue 56)."""
    names = sorted((f.name for f in fields(Settings) if "_" in f.name), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(names) + r")\b")


def naming_the_change(message: str) -> str:
    """A refusal past a limit, with the variable that changes each setting it names
    (`… over max_upload_bytes (…); to change it: TABULAR_MAX_UPLOAD_BYTES=…`), once."""
    names = [n for n in dict.fromkeys(_named().findall(message)) if f"TABULAR_{n.upper()}" not in message]
    if not names:
        return message
    return message + "; to change it: " + ", ".join(f"TABULAR_{n.upper()}=…" for n in names)
