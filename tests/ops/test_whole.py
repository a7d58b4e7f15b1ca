"""Every row of a plan, streamed (ops/whole.py): past the answer's limit, with a receipt that
counts the rows streamed; the same shape of plan with other values streams its own."""

from conftest import PAIRS


def test_every_row_streams_past_the_limit(pairs):
    answer = pairs.query({**PAIRS, "select": [{"column": "a.v"}], "limit": 5})
    whole = answer.to_arrow(whole=True)
    assert len(answer.rows) == 5 and answer.truncated and whole.num_rows == 40_000


def test_the_whole_receipt_counts_the_rows_streamed(engine, pairs):
    whole = engine.stream({"org": "acme", "namespace": "finance", **PAIRS})
    assert whole.reader.read_all().num_rows == 40_000 and whole.receipt.rows_returned == 40_000


def test_two_values_of_one_shape_stream_their_own_rows(pairs):
    def streamed(value):
        plan = {"datasets": [{"source_uri": "pairs"}], "where": [{"column": "v", "op": "lt", "value": value}]}
        return pairs.query({**plan, "select": [{"column": "v"}]}).to_arrow(whole=True)

    first, second = streamed(10), streamed(20)
    assert first.num_rows == 10 and second.num_rows == 20 and max(first.column(0).to_pylist()) == 9
