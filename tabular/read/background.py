"""A Parquet writer on its own thread: the fast reader (read/extraction.py) parses the next
block while this one is encoded and written."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


class BackgroundWriter:
    """Writes Parquet on its own thread, so parsing the next block overlaps with encoding this one."""

    def __init__(self, path: Path, schema: pa.Schema, **options):
        self.writer = pq.ParquetWriter(path, schema, **options)
        self.queue: queue.Queue = queue.Queue(maxsize=4)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._drain, name="extraction-writer", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while (table := self.queue.get()) is not None:
            if self.error is None:
                try:
                    self.writer.write_table(table)
                except BaseException as err:  # handed to the reading thread in put() / __exit__
                    self.error = err

    def put(self, table: pa.Table) -> None:
        if self.error is not None:
            raise self.error
        self.queue.put(table)

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.queue.put(None)
        self.thread.join()
        self.writer.close()
        if self.error is not None and exc[0] is None:
            raise self.error
