"""Compare tabular's column typing with DuckDB's `read_csv` auto-detection on the shared corpus.

    python bench/typing_vs_duckdb.py [--corpus ../shared/corpus] [--dump typing.json] [--check]

Every delimited-text file of the corpus (.csv .tsv .txt .prn, recursively; `_meta/` is left
out) goes through tabular (`ingest_file` on one throwaway engine) and through DuckDB
(`read_csv` with its defaults, `sniff_csv` for the delimiter and header). The columns of the two
reads are paired (by position when the counts match, else by name) and their type *families*
compared. The report gives the counts, a confusion table of families, the files whose shape
differs, every disagreement with a few of its values, and a check against the human verdicts of
tests/typing_real/verdicts.json (see `load_verdicts`). `--dump` writes the disagreements and a
seeded sample of agreements as JSON, for people to judge; `--check` exits 1 when tabular misses
the targets on the judged verdicts.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from common import ROOT, use_working_tree

EXTENSIONS = {".csv", ".tsv", ".txt", ".prn"}
FAMILIES = ("string", "integer", "decimal", "float", "bool", "date", "datetime", "time", "duration", "empty")
MAX_BYTES = 50 * 1024 * 1024  # larger files are skipped, for both readers
TABULAR_WAIT = 30.0  # seconds to wait for one ingest
DUCKDB_TIMEOUT = 30.0  # seconds before one DuckDB read is interrupted
SAMPLE_VALUES = 8
AGREEMENTS_DUMPED = 60
SEED = 13
COLUMN_TARGET = 0.90  # tabular right on >= 90 % of the judged column verdicts (the target)
SHAPE_TARGET = 0.95  # and on >= 95 % of the shape verdicts
INTEGERS = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
}
TABULAR_TYPES = {
    "string": "string",
    "bool": "bool",
    "date": "date",
    "datetime": "datetime",
    "time": "time",
    "duration": "duration",
}


# --- what one reader saw ------------------------------------------------------------------------


@dataclass
class Column:
    name: str
    family: str
    physical: str  # the DuckDB type (tabular: the storage type it chose)
    header: str = ""  # tabular only: the header text the file had
    format: str = ""  # tabular only: how the text was read
    questions: list[str] = field(default_factory=list)  # tabular only: the open questions on it
    samples: list[str] = field(default_factory=list)  # a few distinct values
    rejected: list[str] = field(default_factory=list)  # tabular only: values of rejected rows


@dataclass
class Read:
    """One reader's view of a file: its shape and columns, or the error that stopped it."""

    error: str | None = None
    header: bool | None = None
    columns: list[Column] = field(default_factory=list)
    rows: int | None = None
    delimiter: str | None = None
    extra: dict = field(default_factory=dict)  # facts only this reader has (encoding, skipped lines …)

    def shape(self) -> dict:
        return {"header": self.header, "columns": len(self.columns), "rows": self.rows, "delimiter": self.delimiter}


def physical_family(physical: str) -> str:
    """The family of a DuckDB type name: BIGINT → integer, DECIMAL(9,2) → decimal …"""
    base = physical.upper().split("(")[0].strip()
    if base in INTEGERS:
        return "integer"
    if base == "DECIMAL":
        return "decimal"
    if base in ("DOUBLE", "FLOAT", "REAL"):
        return "float"
    if base == "BOOLEAN":
        return "bool"
    if base.startswith("TIMESTAMP"):
        return "datetime"
    if base.startswith("TIME"):
        return "time"
    if base == "DATE":
        return "date"
    if base == "INTERVAL":
        return "duration"
    if base in ('"NULL"', "NULL", "SQLNULL"):
        return "empty"
    return "string"


# --- tabular ------------------------------------------------------------------------------------


def tabular_family(column, rows: int) -> str:
    """A number's family is its storage type's; a column with no value at all is `empty`."""
    if column.nulls >= rows:
        return "empty"
    if column.type == "number":
        return physical_family(column.physical)
    return TABULAR_TYPES.get(column.type, column.type)


def first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


def distinct_values(values, limit: int = SAMPLE_VALUES) -> list[str]:
    out: list[str] = []
    for value in values:
        text = value if isinstance(value, str) else json.dumps(value)
        if value is not None and text not in out:
            out.append(text)
    return out[:limit]


def read_tabular(ns, path: Path, source_uri: str) -> Read:
    """tabular's ingest of the file and the one dataset it gives."""
    try:
        status = ns.ingest_file(path, source_uri=source_uri, wait=TABULAR_WAIT)
    except Exception as err:  # a crash is a finding, not a reason to stop the run
        return Read(error=f"crash: {type(err).__name__}: {first_line(str(err))}")
    if status.state != "ready":
        return Read(error=f"{status.state} {status.error_code or ''}: {first_line(status.error_message or '')}".strip())
    datasets = ns.dataset_get(source_uri, sample_rows=20).datasets
    if len(datasets) != 1:
        return Read(error=f"{len(datasets)} datasets")
    d = datasets[0]
    asked = {}
    for q in d.questions:
        asked.setdefault(q.column, []).append(q.kind)
    columns = [
        Column(
            name=c.name,
            family=tabular_family(c, d.rows),
            header=c.header,
            physical=c.physical,
            format=c.format,
            questions=asked.get(c.name, []),
            samples=distinct_values(row.get(c.name) for row in d.sample or []),
            rejected=distinct_values(r.value for r in d.rejected if r.column == c.name),
        )
        for c in d.columns
    ]
    extra = {
        "encoding": d.origin.encoding,
        "header_rows": d.origin.header_rows,
        "rows_rejected": d.rows_rejected,
        "file_questions": asked.get("", []),
    }
    extra.update(
        {k: v for k, v in d.origin.model_dump().items() if k in ("preamble_lines", "quote", "newline", "compression")}
    )
    return Read(
        header=d.origin.header_rows > 0,
        columns=columns,
        rows=d.rows + d.rows_rejected,
        delimiter=d.origin.delimiter,
        extra=extra,
    )


# --- DuckDB -------------------------------------------------------------------------------------


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def guarded(con, sql: str, params: list):
    """Run one statement, interrupted after DUCKDB_TIMEOUT seconds."""
    timer = threading.Timer(DUCKDB_TIMEOUT, con.interrupt)
    timer.start()
    try:
        return con.execute(sql, params).fetchall()
    finally:
        timer.cancel()


def read_duckdb(con, path: Path) -> Read:
    """DuckDB's default `read_csv` into the temp table `typed`, the same file as text into `text`
    (with the sniffed dialect, so the columns line up) and `sniff_csv`'s dialect."""
    try:
        guarded(con, "CREATE OR REPLACE TEMP TABLE typed AS SELECT * FROM read_csv(?)", [str(path)])
        sniff = con.execute(
            "SELECT Delimiter, Quote, Escape, SkipRows, HasHeader FROM sniff_csv(?)", [str(path)]
        ).fetchone()
    except Exception as err:
        return Read(error=f"{type(err).__name__}: {first_line(str(err))}")
    delimiter, quote, escape, skip, header = ("" if v == "(empty)" else v for v in sniff)  # sniff_csv's word for none
    described = con.execute("DESCRIBE typed").fetchall()
    names = [row[0] for row in described]
    counts = (
        con.execute(f"SELECT count(*), {', '.join(f'count({quoted(n)})' for n in names)} FROM typed").fetchone()
        if names
        else (0,)
    )
    columns = [
        Column(name=n, family="empty" if filled == 0 else physical_family(t), physical=t)
        for (n, t, *_), filled in zip(described, counts[1:])
    ]
    read = Read(header=bool(header), columns=columns, rows=counts[0], delimiter=delimiter, extra={"skip_rows": skip})
    text_read(con, path, read, [header, delimiter, quote, escape, skip])
    return read


def text_read(con, path: Path, read: Read, dialect: list) -> None:
    """`all_varchar` read of the file, to sample the text behind each column; when its columns
    do not line up with the typed read's, the typed table is sampled instead."""
    sql = "CREATE OR REPLACE TEMP TABLE text AS SELECT * FROM read_csv(?, all_varchar=true, header=?, delim=?, quote=?, escape=?, skip=?)"
    try:
        guarded(con, sql, [str(path), *dialect])
        names = [row[0] for row in con.execute("DESCRIBE text").fetchall()]
    except Exception:
        names = []
    read.extra["samples_from"] = "all_varchar" if names == [c.name for c in read.columns] else "typed"
    if read.extra["samples_from"] == "typed":
        con.execute("CREATE OR REPLACE TEMP TABLE text AS SELECT * FROM typed")


def duckdb_samples(con, column: str) -> list[str]:
    """Up to SAMPLE_VALUES distinct non-null values of a column of `text`, in file order."""
    name = quoted(column)
    sql = f"SELECT CAST({name} AS VARCHAR) FROM text WHERE {name} IS NOT NULL GROUP BY 1 ORDER BY min(rowid) LIMIT {SAMPLE_VALUES}"
    return [row[0] for row in con.execute(sql).fetchall()]


# --- comparing the two reads --------------------------------------------------------------------


@dataclass
class FileResult:
    file: str
    tabular: Read
    duckdb: Read
    pairs: list[tuple[Column, Column]] = field(default_factory=list)
    unpaired_tabular: list[str] = field(default_factory=list)
    unpaired_duckdb: list[str] = field(default_factory=list)

    @property
    def both_read(self) -> bool:
        return self.tabular.error is None and self.duckdb.error is None

    def shape_differences(self) -> list[str]:
        """The shape facts where the two reads differ (both must have read the file)."""
        if not self.both_read:
            return []
        mine, theirs = self.tabular.shape(), self.duckdb.shape()
        differ = [key for key in mine if mine[key] != theirs[key]]
        return differ + (["unpaired columns"] if self.unpaired_tabular or self.unpaired_duckdb else [])

    def shape_facts(self) -> dict:
        return {
            "tabular": {**self.tabular.shape(), **self.tabular.extra, "error": self.tabular.error},
            "duckdb": {**self.duckdb.shape(), **self.duckdb.extra, "error": self.duckdb.error},
            "differs": self.shape_differences(),
            "unpaired_tabular": self.unpaired_tabular,
            "unpaired_duckdb": self.unpaired_duckdb,
        }


def normalised(name: str) -> str:
    return name.strip().lower()


def pair_columns(result: FileResult) -> None:
    """By position when both reads have as many columns, else by normalised name (tabular's
    name or the file's header text)."""
    mine, theirs = result.tabular.columns, result.duckdb.columns
    if len(mine) == len(theirs):
        result.pairs = list(zip(mine, theirs))
        return
    by_name = {normalised(c.name): c for c in reversed(theirs)}
    taken: set[str] = set()
    for column in mine:
        keys = (normalised(column.name), normalised(column.header))
        match = next((by_name[k] for k in keys if k in by_name and k not in taken), None)
        if match is None:
            result.unpaired_tabular.append(column.name)
            continue
        taken.add(normalised(match.name))
        result.pairs.append((column, match))
    result.unpaired_duckdb = [c.name for c in theirs if normalised(c.name) not in taken]


def compare_file(ns, con, path: Path, corpus: Path) -> FileResult:
    rel = path.relative_to(corpus).as_posix()
    result = FileResult(rel, read_tabular(ns, path, rel), read_duckdb(con, path))
    if result.both_read:
        pair_columns(result)
        for _, theirs in result.pairs:
            theirs.samples = duckdb_samples(con, theirs.name)
    return result


def corpus_files(corpus: Path) -> tuple[list[Path], list[Path]]:
    """The delimited files to read, and those skipped for size."""
    found = sorted(
        p
        for p in corpus.rglob("*")
        if p.is_file() and p.suffix.lower() in EXTENSIONS and "_meta" not in p.relative_to(corpus).parts
    )
    return [p for p in found if p.stat().st_size <= MAX_BYTES], [p for p in found if p.stat().st_size > MAX_BYTES]


def run_all(files: list[Path], corpus: Path) -> list[FileResult]:
    use_working_tree()
    import duckdb

    import tabular

    con = duckdb.connect()
    results = []
    progress = sys.stderr.isatty()
    with tempfile.TemporaryDirectory(prefix="typing-") as home, tabular.connect(home) as engine:
        ns = engine.namespace("bench", "typing")
        for k, path in enumerate(files, 1):
            if progress:
                print(
                    f"\r  {k}/{len(files)} {path.relative_to(corpus)}"[:100].ljust(100),
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
            results.append(compare_file(ns, con, path, corpus))
    if progress:
        print(file=sys.stderr)
    con.close()
    return results


# --- the entries people judge -------------------------------------------------------------------


def column_entry(result: FileResult, mine: Column, theirs: Column) -> dict:
    return {
        "file": result.file,
        "column": mine.name,
        "duckdb_column": theirs.name,
        "tabular": {
            "family": mine.family,
            "physical": mine.physical,
            "format": mine.format,
            "question": bool(mine.questions),
            "question_kinds": mine.questions,
        },
        "duckdb": {"type": theirs.physical, "family": theirs.family},
        "samples": theirs.samples,
        "tabular_samples": mine.samples,
        "tabular_rejected": mine.rejected,
        "shape": result.shape_facts(),
    }


def file_entry(result: FileResult) -> dict:
    return {"file": result.file, "column": None, "shape": result.shape_facts()}


def split_entries(results: list[FileResult]) -> tuple[list[dict], list[dict]]:
    """(disagreements: file-level and column-level, agreements)."""
    disagreements, agreements = [], []
    for r in results:
        if not r.both_read or r.shape_differences():
            disagreements.append(file_entry(r))
        for mine, theirs in r.pairs:
            (agreements if mine.family == theirs.family else disagreements).append(column_entry(r, mine, theirs))
    return disagreements, agreements


# --- verdicts -----------------------------------------------------------------------------------


def load_verdicts(path: Path) -> list[dict]:
    """The human verdicts: [{"file": path relative to the corpus, "column": tabular's name or null
    for a file-level verdict, "expected": a family or "question" ("no_table": the file holds no
    table, and refusing it is right), or a list of them when a careful
    analyst would accept any (["decimal", "float"] for measurements), "shape": {"header": bool,
    "columns": int, "delimiter": str} (optional), "why": text}]."""
    return json.loads(path.read_text()) if path.exists() else []


def family_matches(column: Column | None, expected: str | list[str], can_ask: bool) -> bool:
    if column is None:
        return False
    wanted = [expected] if isinstance(expected, str) else expected
    return column.family in wanted or (can_ask and "question" in wanted and bool(column.questions))


def shape_matches(read: Read, shape: dict, expected: str | None, can_ask: bool) -> bool:
    if expected == "no_table":  # an empty file: refusing it is the right answer
        return bool(read.error)
    if read.error:
        return False
    facts = read.shape()
    asked = can_ask and expected == "question" and bool(read.extra.get("file_questions"))
    return all(facts[k] == v for k, v in shape.items() if k in facts) and (expected != "question" or asked)


def judge(verdicts: list[dict], results: list[FileResult]) -> dict:
    """For each verdict, whether tabular and DuckDB match it; verdicts on files not in this run
    are `stale` and left out."""
    by_file = {r.file: r for r in results}
    columns, shapes, stale = [], [], []
    for v in verdicts:
        r = by_file.get(v["file"])
        if r is None:
            stale.append(v)
        elif v.get("column") is None:
            shapes.append(
                {
                    **v,
                    "tabular_ok": shape_matches(r.tabular, v.get("shape", {}), v.get("expected"), True),
                    "duckdb_ok": shape_matches(r.duckdb, v.get("shape", {}), v.get("expected"), False),
                }
            )
        else:
            mine = next((c for c in r.tabular.columns if c.name == v["column"]), None)
            theirs = next((t for m, t in r.pairs if m.name == v["column"]), None)
            columns.append(
                {
                    **v,
                    "tabular_ok": family_matches(mine, v["expected"], True),
                    "duckdb_ok": family_matches(theirs, v["expected"], False),
                }
            )
    return {"columns": columns, "shapes": shapes, "stale": stale}


# --- the report ---------------------------------------------------------------------------------


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def print_counts(results: list[FileResult], skipped: list[Path]) -> None:
    both = [r for r in results if r.both_read]
    only_tab = [r for r in results if r.tabular.error is None and r.duckdb.error]
    only_duck = [r for r in results if r.duckdb.error is None and r.tabular.error]
    neither = [r for r in results if r.tabular.error and r.duckdb.error]
    pairs = [p for r in results for p in r.pairs]
    same = sum(m.family == t.family for m, t in pairs)
    numeric = {"decimal", "float"}
    loose = sum(m.family == t.family or {m.family, t.family} <= numeric for m, t in pairs)
    print(f"files: {len(results)} read, {len(skipped)} skipped (> {MAX_BYTES // 2**20} MiB)")
    print(
        f"  both read {len(both)}, only tabular {len(only_tab)}, only DuckDB {len(only_duck)}, neither {len(neither)}"
    )
    print(f"  shape differs in {sum(bool(r.shape_differences()) for r in results)} of the {len(both)} both read")
    print(
        f"paired columns: {len(pairs)} (unpaired: tabular {sum(len(r.unpaired_tabular) for r in results)}, "
        f"DuckDB {sum(len(r.unpaired_duckdb) for r in results)})"
    )
    print(
        f"  family agreement {pct(same, len(pairs))} ({same}/{len(pairs)}); "
        f"counting decimal and float as one: {pct(loose, len(pairs))} ({loose})"
    )
    print(f"  open questions on {sum(bool(m.questions) for m, _ in pairs)} paired columns")


def print_confusion(results: list[FileResult]) -> None:
    pairs = [p for r in results for p in r.pairs]
    cells = Counter((m.family, t.family) for m, t in pairs)
    asked = Counter(t.family for m, t in pairs if m.questions)
    cols = [f for f in FAMILIES if any(t == f for _, t in cells)]
    rows = [f for f in FAMILIES if any(m == f for m, _ in cells)] + sorted({m for m, _ in cells} - set(FAMILIES))
    width = 9
    print("\nfamilies (rows: tabular, columns: DuckDB; 'question' counts the columns with an open question again)")
    print(f"{'':<10}" + "".join(f"{c:>{width}}" for c in cols) + f"{'total':>{width}}")
    for row in rows:
        counts = [cells[(row, c)] for c in cols]
        print(f"{row:<10}" + "".join(f"{n or '.':>{width}}" for n in counts) + f"{sum(counts):>{width}}")
    print(
        f"{'question':<10}" + "".join(f"{asked[c] or '.':>{width}}" for c in cols) + f"{sum(asked.values()):>{width}}"
    )


def print_files(results: list[FileResult], skipped: list[Path], corpus: Path) -> None:
    print("\nfiles only one reader read (or neither):")
    for r in results:
        if not r.both_read:
            print(f"  {r.file}\n      tabular: {r.tabular.error or 'ok'}\n      DuckDB:  {r.duckdb.error or 'ok'}")
    for path in skipped:
        print(f"  {path.relative_to(corpus)}: skipped, {path.stat().st_size / 2**20:,.0f} MiB")
    print("\nshape differences (tabular / DuckDB):")
    for r in results:
        differ = r.shape_differences()
        if differ:
            mine, theirs = r.tabular.shape(), r.duckdb.shape()
            facts = [f"{k} {mine[k]!r}/{theirs[k]!r}" for k in differ if k in mine]
            if "unpaired columns" in differ:
                facts.append(f"unpaired {r.unpaired_tabular}/{r.unpaired_duckdb}"[:120])
            print(f"  {r.file}: {'; '.join(facts)}")


def print_disagreements(disagreements: list[dict]) -> None:
    columns = [d for d in disagreements if d["column"] is not None]
    print(f"\ncolumn disagreements: {len(columns)} (tabular family[physical format ?question] vs DuckDB type: values)")
    groups = Counter((d["tabular"]["family"], d["duckdb"]["family"]) for d in columns)
    for (mine, theirs), n in sorted(groups.items(), key=lambda g: -g[1]):
        print(f"\n  {mine} vs {theirs}: {n}")
        for d in columns:
            if (d["tabular"]["family"], d["duckdb"]["family"]) == (mine, theirs):
                t = d["tabular"]
                how = " ".join(
                    x
                    for x in (t["physical"], t["format"], "?" + ",".join(t["question_kinds"]) if t["question"] else "")
                    if x
                )
                values = ", ".join(repr(v) for v in d["samples"])
                print(f"    {d['file']} :: {d['column']}  [{how}] vs {d['duckdb']['type']}: {values}"[:220])


def print_verdicts(judged: dict) -> None:
    columns, shapes = judged["columns"], judged["shapes"]
    print(
        f"\nverdicts: {len(columns)} on columns, {len(shapes)} on file shapes, {len(judged['stale'])} stale (file not in this run)"
    )
    mine, theirs = sum(v["tabular_ok"] for v in columns), sum(v["duckdb_ok"] for v in columns)
    either = sum(v["tabular_ok"] and v["duckdb_ok"] for v in columns)
    print(
        f"  judged column disagreements {len(columns)}: tabular right {pct(mine, len(columns))}, "
        f"DuckDB right {pct(theirs, len(columns))}, either way (both right) {pct(either, len(columns))}"
    )
    print(
        f"  shape verdicts: tabular matched {pct(sum(v['tabular_ok'] for v in shapes), len(shapes))}, "
        f"DuckDB matched {pct(sum(v['duckdb_ok'] for v in shapes), len(shapes))}"
    )
    for v in columns + shapes:
        if not v["tabular_ok"]:
            expected = " ".join(str(x) for x in (v.get("expected"), v.get("shape")) if x)
            print(f"  tabular misses: {v['file']} :: {v.get('column') or '(file)'} expected {expected}")
    for v in judged["stale"]:
        print(f"  stale: {v['file']} :: {v.get('column')}")


def check_targets(judged: dict) -> bool:
    """Whether tabular meets the targets on the verdicts there are; False when there are none."""
    checked = []
    for label, verdicts, target in (
        ("column verdicts", judged["columns"], COLUMN_TARGET),
        ("shape verdicts", judged["shapes"], SHAPE_TARGET),
    ):
        if not verdicts:
            print(f"  {label:<16} not checked (no verdicts)")
            continue
        share = sum(v["tabular_ok"] for v in verdicts) / len(verdicts)
        checked.append(share >= target)
        print(f"  {label:<16} {'PASS' if checked[-1] else 'MISS'}  (tabular right {share:.1%}, target {target:.0%})")
    return bool(checked) and all(checked)


def write_dump(path: Path, disagreements: list[dict], agreements: list[dict], judged: dict) -> None:
    rng = random.Random(SEED)
    sample = rng.sample(agreements, min(AGREEMENTS_DUMPED, len(agreements)))
    path.write_text(
        json.dumps({"disagreements": disagreements, "agreements": sample, "verdicts": judged}, indent=1, default=str)
    )
    print(f"\nwrote {len(disagreements)} disagreements and {len(sample)} agreements to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--verdicts", type=Path, default=ROOT / "tests" / "typing_real" / "verdicts.json")
    parser.add_argument("--dump", type=Path, help="write the disagreements (and a sample of agreements) as JSON")
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 unless tabular is right on >= {COLUMN_TARGET:.0%} "
        f"of the column verdicts and >= {SHAPE_TARGET:.0%} of the shape verdicts",
    )
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}")

    files, skipped = corpus_files(corpus)
    print(f"reading {len(files)} delimited files of {corpus} with tabular and DuckDB ...", file=sys.stderr)
    results = run_all(files, corpus)
    disagreements, agreements = split_entries(results)
    judged = judge(load_verdicts(args.verdicts), results)

    print(f"corpus {corpus}")
    print_counts(results, skipped)
    print_confusion(results)
    print_files(results, skipped, corpus)
    print_disagreements(disagreements)
    print_verdicts(judged)
    if args.dump:
        write_dump(args.dump, disagreements, agreements, judged)
    print("\ntargets:")
    ok = check_targets(judged)
    if args.check and not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
