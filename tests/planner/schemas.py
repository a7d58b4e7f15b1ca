"""Fixed schemas for planner tests: the planner takes schemas as values, so no database is needed."""

from planner.schema import ColumnInfo, DatasetInfo


def _cols(*spec):
    return tuple(ColumnInfo(name, type_, physical, unique) for name, type_, physical, unique in spec)


ORDERS = DatasetInfo(
    "files/orders.csv",
    "orders",
    "s_orders",
    3,
    ("snapshots", "s_orders"),
    300,
    0,
    False,
    _cols(
        ("order_id", "number", "BIGINT", True),
        ("customer_id", "number", "BIGINT", False),
        ("region", "string", "VARCHAR", False),
        ("amount", "number", "DECIMAL(8, 2)", False),
        ("ordered_on", "date", "DATE", False),
        ("Note", "string", "VARCHAR", False),
    ),
)
CUSTOMERS = DatasetInfo(
    "files/customers.csv",
    "customers",
    "s_customers",
    1,
    ("snapshots", "s_customers"),
    40,
    0,
    False,
    _cols(
        ("customer_id", "number", "BIGINT", True),
        ("name", "string", "VARCHAR", False),
        ("segment", "string", "VARCHAR", False),
        ("code", "string", "VARCHAR", False),
    ),
)
WORKBOOK = [
    DatasetInfo(
        "files/book.xlsx",
        "sales",
        "s_sales",
        1,
        ("snapshots", "s_sales"),
        10,
        0,
        False,
        _cols(("x", "number", "BIGINT", False)),
    ),
    DatasetInfo(
        "files/book.xlsx",
        "costs",
        "s_costs",
        1,
        ("snapshots", "s_costs"),
        10,
        0,
        False,
        _cols(("x", "number", "BIGINT", False)),
    ),
]
BY_SOURCE = {"files/orders.csv": [ORDERS], "files/customers.csv": [CUSTOMERS], "files/book.xlsx": WORKBOOK}


def found_for(plan):
    """Each dataset's schemas, and a plan as a dataset's own (its plan's datasets')."""
    return [found_for(d.plan) if hasattr(d, "plan") else BY_SOURCE.get(d.source_uri, []) for d in plan.datasets]


def column_node(type_: str, physical: str, name: str = "x"):
    """A typed expression leaf reading a dataset column of this type (for the operator tests)."""
    from planner.resolved import ColumnNode, Ref
    from planner.rules import shape_of

    return ColumnNode(
        type=type_, physical=physical, ref=Ref("t", ColumnInfo(name, type_, physical)), shape=shape_of(physical)
    )


def operation(op: str, type_: str, physical: str, *args, shape=None):
    """A typed operator node over typed arguments."""
    from planner.resolved import Operation

    return Operation(op=op, type=type_, physical=physical, args=list(args), shape=shape)


def literal_node(value):
    """A number literal as the plan writes it."""
    from planner.resolved import LiteralNode
    from planner.rules import exact_physical, literal_shape

    return LiteralNode(
        type="number", physical=exact_physical(literal_shape(value)), value=value, shape=literal_shape(value)
    )
