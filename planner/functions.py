"""The filters and aggregates of the operator table, by the names callers outside the planner
import them by (the table itself is operators.py, with the expression operators)."""

from .operators import AGGREGATES, BUCKET_TYPES, BUCKETS, FILTERS, AggregateDef, FilterDef
from .rules import ANY, NUMBER, ORDERED, STRING, decimal_median, decimal_shape

__all__ = [
    "AGGREGATES",
    "ANY",
    "BUCKETS",
    "BUCKET_TYPES",
    "FILTERS",
    "NUMBER",
    "ORDERED",
    "STRING",
    "AggregateDef",
    "FilterDef",
    "decimal_median",
    "decimal_shape",
]
