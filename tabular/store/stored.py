"""The extraction a dataset is typed from again (SPEC §1).

Workbooks, JSON and Parquet store their cells as text at ingest. Delimited text read in one pass
does not: the upload itself, with the encoding, dialect and header that were read, is the
extraction. The first re-typing that needs its cells (an approval, a typing inferred again)
reads the upload once more with the same options into the Parquet form every other reader
writes, beside the revision, and later ones use that file.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from ..errors import IngestFailed
from ..read.extraction import read_delimited
from ..settings import Settings
from .catalog import Con, extraction_of
from .home import Catalog


def extraction(
    catalog: Catalog,
    settings: Settings,
    cur: Con,
    org: str,
    namespace: str,
    source_uri: str,
    revision: int,
    dataset_id: str,
) -> str:
    """The path of the dataset's extraction Parquet, written from the upload if it is not there."""
    path: str
    path, name, options_text, rows, upload = extraction_of(cur, org, namespace, source_uri, revision, dataset_id)
    target = Path(path)
    if target.exists():
        return path
    partial = target.with_name(f"{target.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        extracted = read_delimited(Path(upload), partial, name, json.loads(options_text), settings)
        if extracted.rows != rows:
            raise IngestFailed("format_unavailable", f"the upload reads as {extracted.rows} rows now, not {rows}")
        partial.replace(target)  # two re-typings at once both write; either file is the same
    finally:
        partial.unlink(missing_ok=True)
    return path
