"""Write the golden SQL again after a deliberate change to what the compiler writes:

    .venv/bin/python tests/plans/regolden.py

Each plan of golden_sql.json (its name, its plan, and `engines` where not every engine answers
it) is compiled again for DuckDB (golden_sql.json) and for ClickHouse (golden_clickhouse_sql.json,
the plans ClickHouse answers). Review the diff before committing it: a change there is a change to
the SQL every engine runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent.parent / "planner"  # the golden plans are the compiler's
sys.path.insert(0, str(HERE))

from schemas import found_for  # noqa: E402
from test_compile import as_json  # noqa: E402

from planner.compile import compile_plan  # noqa: E402
from planner.models import QueryPlan  # noqa: E402
from planner.resolve import resolve  # noqa: E402
from planner.targets import CLICKHOUSE, DUCKDB, Target  # noqa: E402
from tabular.jsonval import to_json  # noqa: E402


def compiled(case: dict[str, Any], target: Target, values: Any) -> dict[str, Any]:
    plan = QueryPlan.model_validate(case["plan"])
    result = compile_plan(resolve(plan, found_for(plan), [], target=target), target)
    out = {k: v for k, v in case.items() if k not in ("sql", "params")}
    return {**out, "sql": result.sql, "params": {k: values(v) for k, v in result.params.items()}}


def answered_by(case: dict[str, Any], target: Target) -> bool:
    return target.name in case.get("engines", [target.name])


def main() -> None:
    cases = json.loads((HERE / "golden_sql.json").read_text())
    for path, target, values in (
        ("golden_sql.json", DUCKDB, as_json),
        ("golden_clickhouse_sql.json", CLICKHOUSE, to_json),
    ):
        written = [compiled(c, target, values) for c in cases if answered_by(c, target)]
        (HERE / path).write_text(json.dumps(written, indent=1, ensure_ascii=False) + "\n")
        print(f"{path}: {len(written)} plans")


if __name__ == "__main__":
    main()
