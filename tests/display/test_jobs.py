"""What a person sees of an ingest's answers (tabular/display/jobs.py): upload, ingest,
ingest_status, ingest_cancel, the open jobs and the formats, each a short view in a notebook and
one line at a prompt or in print, where pydantic printed every field (issue 36, item 7)."""

from html import escape

from conftest import CSV


def body_rows(html: str, css: str) -> int:
    """How many rows the first table of class `css` shows."""
    table = html.split(f'<table class="{css}">', 1)[1].split("</table>", 1)[0]
    return table.split("<tbody>", 1)[1].count("<tr")


def one_line(said: str, *parts: str) -> None:
    """A repr as a prompt shows it: one short line, naming what a person looks for."""
    assert "\n" not in said and len(said) < 200, said
    for part in parts:
        assert part in said, (part, said)


def test_an_ingest_status_is_one_line_and_a_short_view_not_a_field_dump(ns, capsys):
    status = ns.ingest_file(CSV / "currency.csv", source_uri="money")
    one_line(repr(status), "<IngestStatusOut ready: money → revision 1, 6 of 6 rows read>")
    print(status)  # print says the same line, where pydantic printed every field
    assert capsys.readouterr().out == repr(status) + "\n"
    html = status._repr_html_()
    assert ">ready</b> currency.csv → money, revision 1" in html and "6 of 6 rows read" in html
    assert "ns.dataset_get(&#x27;money&#x27;)" in html
    assert f'<details class="tabular-job"><summary>job {status.ingestion_id}</summary>' in html  # the ids folded
    assert "coverage=" not in repr(status) and "Coverage(" not in html


def test_a_failed_ingest_says_its_code_and_message_highlighted(ns, tmp_path):
    bad = tmp_path / "empty.csv"
    bad.write_bytes(b"")
    status = ns.ingest_file(bad)
    assert status.state == "failed" and status.error_code
    one_line(repr(status), "<IngestStatusOut failed: empty.csv", status.error_code)
    block = status._repr_html_().split('<div class="tabular-error"', 1)[1].split("</div>", 1)[0]
    assert "background:" in block and status.error_code in block and escape(status.error_message[:40]) in block


def test_a_running_job_shows_its_phase_and_counts_and_the_open_jobs_a_table():
    from tabular.models import IngestStatusOut, JobsOut

    running = IngestStatusOut(
        ingestion_id="i_1",
        source_uri="big.csv",
        filename="big.csv",
        state="processing",
        stage="typing",
        progress={"phase": "type", "unit": "rows", "total": 50_000, "done": 12_000},
        cancel_requested=True,
        created_at="2026-12-05T08:00:00.123+00:00",
    )
    one_line(repr(running), "<IngestStatusOut processing: big.csv, type: 12,000 of 50,000 rows, cancel asked>")
    html = running._repr_html_()
    assert '<progress value="12000" max="50000">' in html and "type: 12,000 of 50,000 rows; cancel asked" in html
    reading = running.model_copy(
        update={
            "progress": running.progress.model_copy(
                update={"phase": "read", "unit": "bytes", "done": 1_200_000, "total": 4_000_000}
            )
        }
    )
    assert "read: 1.2 MB of 4.0 MB" in repr(reading)
    jobs = JobsOut(jobs=[running, IngestStatusOut(ingestion_id="i_2", source_uri="b.csv", state="pending")])
    one_line(repr(jobs), "<JobsOut 2 jobs: i_1 big.csv processing (type: 12,000 of 50,000 rows); i_2 b.csv pending>")
    html = jobs._repr_html_()
    assert body_rows(html, "tabular-jobs") == 2 and "2026-12-05 08:00:00" in html and "(cancel asked)" in html
    assert (
        "no ingest job is pending or running" in JobsOut()._repr_html_()
        and repr(JobsOut()) == "<JobsOut no job pending or running>"
    )


def test_the_open_jobs_say_the_keys_they_ignored_as_every_other_view(ns):
    listed = ns.run("knowledge.ingest_jobs", {"statee": "pending"})
    assert listed.ignored_args == ["statee"]
    assert '<div class="tabular-ignored"' in listed._repr_html_() and "statee" in listed._repr_html_()


def test_upload_ingest_and_cancel_answers_say_what_happened(ns):
    import base64

    up = ns.run("knowledge.upload", {"filename": "a.csv", "content_base64": base64.b64encode(b"a\n1\n").decode()})
    one_line(repr(up), f"<UploadOut {up.upload_id}: a.csv, 4 bytes, sha256 {up.sha256[:12]}…>")
    assert up.sha256 in up._repr_html_()
    started = ns.run("knowledge.ingest", {"upload_id": up.upload_id, "source_uri": "a"})
    one_line(repr(started), f"<IngestOut {started.ingestion_id} ", ": a>")
    assert started.ingestion_id in started._repr_html_()
    cancel = ns.run("knowledge.ingest_cancel", {"ingestion_id": started.ingestion_id})
    said = {"cancelled": "cancelled", "ready": "not cancelled: the job had already ended (ready)"}[cancel.state]
    assert repr(cancel) == f"<IngestCancelOut {said}>" and said in cancel._repr_html_()
    missing = ns.run("knowledge.ingest_cancel", {"ingestion_id": "i_nothing"})
    assert repr(missing) == "<IngestCancelOut not found: no such ingest job in this namespace>"


def test_the_formats_are_a_table_with_the_upload_limit(ns):
    formats = ns.run("knowledge.formats")
    html = formats._repr_html_()
    assert body_rows(html, "tabular-formats") == len(formats.formats) > 5 and "<b>xlsx</b>" in html and ".xlsx" in html
    assert "uploads up to 268.4 MB (max_upload_bytes)" in html and ".doc" in html
    one_line(repr(formats), f"<FormatsOut {len(formats.formats)} formats (csv, tsv, xlsx")
