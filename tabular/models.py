"""The typed input and output of the ops whose models more than one module uses (SPEC §4): the
ingest ops (upload, ingest, ingest_status, ingest_cancel, formats: the ops answer in ops/ingest.py,
the job runs its IngestIn in ingest/pipeline.py) and dataset_get with the dataset shapes that approve,
query and synthesize answer too. Every other op keeps its In and Out beside it in its ops module.
Field docs become the JSON schema and the MCP tool descriptions, so they are written for the caller."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from .display import (
    cancel_html,
    cancel_repr,
    datasets_html,
    datasets_repr,
    formats_html,
    formats_repr,
    ingest_html,
    ingest_repr,
    jobs_html,
    jobs_repr,
    status_html,
    status_repr,
    upload_html,
    upload_repr,
)


class Model(BaseModel):
    """The base of the ops' models: each builds its validator and serializer when first used
    (pydantic's defer_build), not when its module is imported, so a command that runs one op does
    not build every op's models (issue 56: `tabular list` waited for them). The ops' own In and Out
    inherit it through OpIn and OpOut."""

    model_config = ConfigDict(defer_build=True)


# knowledge.ingest: metadata at most this large as JSON (titles and tags have their own limits).
METADATA_BYTES = 64 * 1024


class OpIn(Model):
    """Every op takes org and namespace; unknown fields are served and named in `ignored_args`."""

    model_config = ConfigDict(extra="allow")
    org: str = Field(
        default="", max_length=200, description="Organisation; filled from the token or the install's default."
    )
    namespace: str = Field(
        default="",
        max_length=200,
        description="Namespace inside the org; filled from the install's default when empty.",
    )


class OpOut(Model):
    ignored_args: list[str] = Field(
        default_factory=list, description="Input fields this op does not know; they were ignored."
    )

    def __str__(self) -> str:
        # print(answer) says the one line of its repr, where pydantic would print every field.
        return repr(self)


class SourceAnswer(OpOut):
    """An answer about one named source (or one dataset of it)."""

    did_you_mean: list[str] = Field(
        default_factory=list,
        description="When found is false: the names closest to the one asked (sources of this namespace, or the "
        "source's dataset ids), at most three.",
    )


class IngestOptions(Model):
    model_config = ConfigDict(extra="forbid")
    format: str | None = Field(
        default=None,
        description="Force the format instead of detecting it: one knowledge.formats lists (csv, tsv, xlsx, …).",
    )
    encoding: str | None = Field(
        default=None, description="Force the text encoding (a Python codec name: utf-8, cp1252, shift_jis …)."
    )
    delimiter: str | None = Field(
        default=None, min_length=1, max_length=1, description="Force the delimiter of delimited text."
    )
    header_rows: int | None = Field(
        default=None, ge=0, le=2, description="How many header rows (0: none; 2: two rows joined as 'A / B')."
    )
    sheets: list[str] | None = Field(default=None, description="Spreadsheets: the sheets to read.")
    decimal_mark: Literal[".", ","] | None = Field(default=None, description="Force the decimal mark of numbers.")
    date_order: Literal["DMY", "MDY", "YMD"] | None = Field(
        default=None, description="Force the order of day, month and year in dates."
    )
    null_values: list[str] | None = Field(
        default=None, description="Texts read as null, replacing the defaults (empty, NA, N/A, null, -, #N/A …)."
    )

    @field_validator("encoding")
    @classmethod
    def _a_text_encoding(cls, name: str | None) -> str | None:
        """A codec str.encode and bytes.decode take (not zlib_codec, rot13, hex …: those map bytes
        to bytes or text to text), refused here rather than failing the job."""
        if name is None:
            return name
        try:
            "".encode(name)
            b"".decode(name)
        except LookupError:
            raise ValueError(
                f"{name!r} is not a text encoding (a Python codec name: utf-8, cp1252, shift_jis …)"
            ) from None
        return name


class UploadIn(OpIn):
    filename: str = Field(min_length=1, description="The file's name; its extension tells the format.")
    content_base64: str = Field(description="The file's bytes, base64. Over HTTP, send the raw body instead.")
    content_type: str = "application/octet-stream"


class UploadOut(OpOut):
    upload_id: str
    filename: str
    bytes: int
    sha256: str
    content_type: str

    def _repr_html_(self) -> str:
        return upload_html(self)

    def __repr__(self) -> str:
        return upload_repr(self)


class IngestIn(OpIn):
    upload_id: str = Field(description="What knowledge.upload answered.")
    source_uri: str = Field(
        min_length=1,
        max_length=1024,
        description="The source's name in the namespace; a new ingest of it publishes the next revision.",
    )
    title: str = Field(default="", max_length=1000)
    description: str = Field(default="", max_length=10_000)
    tags: list[Annotated[str, Field(max_length=200)]] = Field(default_factory=list, max_length=100)
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Free JSON about the source, at most 64 KiB of it."
    )

    @field_validator("metadata")
    @classmethod
    def _small(cls, metadata: dict) -> dict:
        if len(json.dumps(metadata, ensure_ascii=False, default=str).encode()) > METADATA_BYTES:
            raise ValueError(f"metadata is over {METADATA_BYTES} bytes as JSON")
        return metadata

    expected_revision: int | None = Field(
        default=None, ge=0, description="Publish only if this revision is live (0: nothing live yet)."
    )
    allow_partial: bool = Field(default=False, description="Publish what was read when part of the file could not be.")
    options: IngestOptions = Field(default_factory=IngestOptions, description="Overrides for what the file cannot say.")
    idempotency_key: str = Field(
        default="",
        max_length=200,
        description="The same key in this namespace answers the same job instead of starting another (HTTP: the Idempotency-Key header).",
    )


class IngestOut(OpOut):
    ingestion_id: str
    state: str
    source_uri: str
    namespace: str

    def _repr_html_(self) -> str:
        return ingest_html(self)

    def __repr__(self) -> str:
        return ingest_repr(self)


class IngestStatusIn(OpIn):
    ingestion_id: str


class Coverage(Model):
    unit: str = "rows"
    total: int = 0
    extracted: int = 0
    failed: int = 0
    lost: list[str] = Field(default_factory=list)

    @classmethod
    def of_rows(cls, rows: int) -> dict:
        """A table read whole, as the revision stores it."""
        return cls(unit="rows", total=rows, extracted=rows).model_dump()

    @classmethod
    def of_sheets(cls, sheets: int, lost: list[str]) -> dict:
        """A workbook's sheets, `lost` saying which could not be read and why."""
        return cls(unit="sheets", total=sheets, extracted=sheets - len(lost), failed=len(lost), lost=lost).model_dump()


class Progress(Model):
    """How far the job is, for a progress bar: `done` of `total` in `unit` within the current
    `phase` (read: bytes of the file; type: rows typed; write: rows written). `completed` is
    `done` under the name Halo-style clients read; a total of 0 means not known yet."""

    phase: str = ""
    unit: str = ""
    total: int = 0
    done: int = 0
    completed: int = 0


# The first word of a job's first warning when the bytes were live already: no new revision
# (ingest/again.py says it; IngestStatusOut.unchanged reads it).
UNCHANGED = "unchanged"


class IngestStatusOut(OpOut):
    found: bool = True
    ingestion_id: str
    source_uri: str = ""
    state: str = ""
    stage: str = ""
    attempts: int = 0
    error_code: str | None = None
    error_message: str | None = None
    format: str | None = None
    coverage: Coverage = Field(default_factory=Coverage)
    warnings: list[str] = Field(default_factory=list)
    revision: int | None = None
    unchanged: bool = Field(
        default=False,
        description="The same bytes, read the same way, as the live revision: no new revision (`revision` is the one "
        "that holds them; the first warning says so).",
    )
    expected_revision: int | None = None
    filename: str = ""
    progress: Progress = Field(default_factory=Progress)
    cancel_requested: bool = False
    created_at: str = ""
    updated_at: str = ""

    def _repr_html_(self) -> str:
        return status_html(self)

    def __repr__(self) -> str:
        return status_repr(self)


class JobsOut(OpOut):
    """The jobs of a namespace that have not ended (knowledge.ingest_jobs, Namespace.jobs, `tabular jobs`)."""

    jobs: list[IngestStatusOut] = Field(default_factory=list)

    def _repr_html_(self) -> str:
        return jobs_html(self)

    def __repr__(self) -> str:
        return jobs_repr(self)


class IngestCancelOut(OpOut):
    found: bool
    state: str = ""
    cancelled: bool = False

    def _repr_html_(self) -> str:
        return cancel_html(self)

    def __repr__(self) -> str:
        return cancel_repr(self)


class FormatOut(Model):
    name: str
    extensions: list[str]
    media_types: list[str]


class FormatsOut(OpOut):
    formats: list[FormatOut]
    max_upload_bytes: int
    refused_extensions: list[str]
    default_format: str

    def _repr_html_(self) -> str:
        return formats_html(self)

    def __repr__(self) -> str:
        return formats_repr(self)


class Origin(Model):
    """How a dataset was read from its file. Every key is declared: none travels outside the schema."""

    model_config = ConfigDict(extra="forbid")
    format: str
    parser: str | None = Field(
        default=None,
        description="What read the cells: csv (Python's csv module), fixed-width, arrow (Arrow's CSV reader), "
        "openpyxl, calamine, fastexcel, json, duckdb (DuckDB's parallel CSV reader, or Parquet).",
    )
    sheet: str | None = None
    range: str | None = Field(default=None, description="The table's cells on its sheet (A1:F20).")
    hidden_sheets: list[str] | None = Field(default=None, description="The workbook's sheets not shown, so not read.")
    header_rows: int = 1
    delimiter: str | None = None
    quote: str | None = Field(default=None, description="The quote character of delimited text.")
    escape: str | None = Field(
        default=None, description="The escape character, where the text has one besides doubled quotes."
    )
    newline: str | None = Field(default=None, description="CRLF, LF or CR.")
    preamble_lines: int | None = Field(
        default=None, description="Lines before the header that were left out (a title, notes)."
    )
    encoding: str | None = None
    compression: str | None = Field(default=None, description="The container the text came in (gzip, zip), or none.")
    decimal_mark: str | None = None
    date_order: str | None = None
    one_pass: bool | None = Field(
        default=None,
        description="Typed on a sample and stored in one guarded pass over the rows (the careful way, which counts every row first, when absent).",
    )


class ColumnOut(Model):
    name: str = Field(description="The column as a plan names it.")
    header: str = Field(description="The header text the file had.")
    type: str = Field(description="One of string, number, bool, date, datetime, time, duration.")
    physical: str = Field(description="The DuckDB storage type.")
    format: str = Field(
        description="How the text was read: a strptime pattern, decimal_mark/group_mark/unit/negative (brackets, trailing) for numbers."
    )
    nullable: bool
    nulls: int
    distinct: int
    distinct_estimated: bool = Field(
        default=False,
        description="`distinct` is an estimate within 2%: the column has more non-null values than the exact_distinct_values setting (1,000,000). `unique` is exact all the same.",
    )
    unique: bool
    min: Any = None
    max: Any = None
    approved: bool = Field(default=False, description="A person set this column's type.")


class TypeFormat(Model):
    type: str
    format: str


class QuestionOption(TypeFormat):
    rows_rejected: int
    example: str | None = None


# The API's names for infer/questions.KINDS, the one table of question kinds (their words, who asks,
# the one pass's guard); a test holds the two the same.
QuestionKind = Literal[
    "header_row",
    "mixed_values",
    "leading_zeros",
    "leading_plus",
    "bool_or_number",
    "decimal_mark",
    "group_mark",
    "date_order",
    "century",
    "scientific",
    "precision",
    "time_zone",
    "carried_approval",
    "approval_not_carried",
]


class QuestionOut(Model):
    id: str
    column: str
    kind: QuestionKind = Field(
        description="header_row: is the first row a header or data? "
        "mixed_values: most values read as one type but some do not (or only some datetimes have an offset). "
        "leading_zeros, leading_plus: whole numbers written like identifiers ('007', '+31…'), held as text. "
        "bool_or_number: every value is 0 or 1. "
        "decimal_mark: is '.' or ',' the decimal mark? "
        "group_mark: in a column of decimals, values with one group mark and no decimal mark (7.125 beside 7,5): thousands or decimals? "
        "date_order: day/month or month/day (or a two-digit year first)? "
        "century: dates with two-digit years some of which read past next year (05/06/60 as 2060): text, or the years as read (00-68 as 2000-2068)? "
        "scientific: whole numbers with an unsigned exponent in every value (12E3), as codes are written: text, or numbers? "
        "precision: numbers with more digits than floating point keeps (1E3 beside 12345678901234567.89, or past 38 digits): text, or floating point rounded? "
        "time_zone: datetimes that end in a zone abbreviation (EST, CST), which names more than one zone: text, or local times as written? "
        "carried_approval: no longer asked (a type a person set on an earlier revision that still reads every value "
        "is kept without a question); the kind stays for answers stored before. "
        "approval_not_carried: a type a person set on an earlier revision no longer reads every value; typed afresh."
    )
    question: str
    current: TypeFormat
    options: list[QuestionOption]


class RejectedOut(Model):
    row_id: int
    line: int | None
    column: str | None
    value: str | None
    reason: str


class DatasetOut(Model):
    dataset_id: str
    name: str
    index: int
    snapshot_id: str
    revision: int
    origin: Origin
    rows: int
    rows_rejected: int
    complete: bool
    columns: list[ColumnOut]
    questions: list[QuestionOut]
    rejected: list[RejectedOut] = Field(description="The first 20 rejected rows.")
    warnings: list[str] = Field(default_factory=list)
    approved: bool = False
    approved_at: str | None = None
    approved_by: str | None = None
    sample: list[dict[str, Any]] | None = None
    sample_row_ids: list[int] | None = None


class DatasetGetIn(OpIn):
    source_uri: str = Field(
        min_length=1,
        description="The source, as ingested; `source#dataset` names one of its datasets (a workbook's table by its name).",
    )
    dataset_id: str = Field(default="", description="'' for every dataset of the source.")
    sample_rows: int = Field(default=0, ge=0, le=1000, description="The first rows of each of the first 20 datasets.")


class DatasetGetOut(SourceAnswer):
    found: bool
    revision: int | None = None
    datasets: list[DatasetOut] = Field(default_factory=list)
    # The source and dataset_id asked for, set by the namespace that asked: its views write them
    # in the calls that answer the questions.
    _asked: tuple[str, str] | None = PrivateAttr(None)

    def _repr_html_(self) -> str:
        return datasets_html(self, *(self._asked or (None, "")))

    def __repr__(self) -> str:
        return datasets_repr(self)
