"""What a person sees of the answers about sources (tabular/display/sources.py): list, get, delete,
restore, linked folders and their files, a streamed whole result; a view in a notebook, one line
at a prompt (issue 36, item 7)."""

import pytest
from conftest import CSV, ingest


def body_rows(html: str, css: str) -> int:
    """How many rows the first table of class `css` shows."""
    table = html.split(f'<table class="{css}">', 1)[1].split("</table>", 1)[0]
    return table.split("<tbody>", 1)[1].count("<tr")


def one_line(said: str, *parts: str) -> None:
    """A repr as a prompt shows it: one short line, naming what a person looks for."""
    assert "\n" not in said and len(said) < 200, said
    for part in parts:
        assert part in said, (part, said)


@pytest.fixture
def hundred(ns, tmp_path):
    path = tmp_path / "orders.csv"
    path.write_text(
        "id,customer,amount,placed\n"
        + "".join(f"{i},c{i % 7},{i}.50,2024-01-{i % 28 + 1:02d}\n" for i in range(1, 151))
    )
    assert ns.ingest_file(path, source_uri="orders").state == "ready"
    return ns


def test_the_list_of_sources_is_a_table_with_deleted_ones_and_the_next_page(ns):
    assert repr(ns.run("knowledge.list")) == "<ListOut no sources>"
    for name in ("b<1>.csv", "a.csv"):
        ns.ingest_file(CSV / "currency.csv", source_uri=name)
    ns.run("knowledge.delete", {"source_uri": "a.csv"})
    listed = ns.run("knowledge.list")
    assert repr(listed) == "<ListOut 2 sources (a.csv deleted, b<1>.csv r1)>"
    html = listed._repr_html_()
    assert (
        body_rows(html, "tabular-sources") == 2
        and "<b>b&lt;1&gt;.csv</b>" in html
        and '<td class="tabular-num">deleted</td>' in html
    )
    page = ns.run("knowledge.list", {"limit": 1})
    assert repr(page).endswith("; more: next_cursor>") and "on this page" in page._repr_html_()


def test_get_delete_and_restore_say_the_source_and_its_revision(ns):
    _, d = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    ns.approve("d", d.snapshot_id, formats={"when": "MDY"})
    got = ns.run("knowledge.get", {"source_uri": "d"})
    assert repr(got) == "<GetOut d revision 1: csv, 1 dataset (dates_ambiguous), 1 approval>"
    html = got._repr_html_()
    assert "<b>d</b> <small>revision 1</small>" in html and "8 of 8 rows read" in html
    assert "when: date %d/%m/%Y → date %m/%d/%Y" in html.split('<details class="tabular-approvals">', 1)[1]
    assert repr(ns.run("knowledge.get", {"source_uri": "dd"})) == "<GetOut not found; did you mean 'd'?>"
    deleted = ns.run("knowledge.delete", {"source_uri": "d"})
    assert repr(deleted) == "<DeleteOut deleted revision 1; knowledge.restore brings it back>"
    assert repr(ns.run("knowledge.delete", {"source_uri": "d"})) == "<DeleteOut was already deleted>"
    assert "deleted (revision 1 restorable" in ns.run("knowledge.get", {"source_uri": "d"})._repr_html_()
    restored = ns.run("knowledge.restore", {"source_uri": "d"})
    assert repr(restored) == "<RestoreOut restored revision 1>" and "restored revision 1" in restored._repr_html_()
    again = ns.run("knowledge.restore", {"source_uri": "d"})
    assert repr(again).startswith("<RestoreOut not restored: ") and again.reason in repr(again)


def test_links_and_their_files_are_tables_with_what_needs_a_look_highlighted():
    from tabular.ops.links import DirFilesOut, LinkOut, ListDirsOut, UnlinkDirOut

    link = LinkOut(
        link_id="l_1",
        path="/data/exports",
        label="sales",
        prefix="sales/",
        watching=True,
        last_scanned_at="2026-12-05T08:00:00+00:00",
        files=12,
        states={"learned": 10, "pending": 0, "failed": 2},
    )
    one_line(repr(link), "<LinkOut l_1 /data/exports → sales/: 12 files (10 learned, 2 failed), watching>")
    paused = LinkOut.model_validate(
        {
            **link.model_dump(),
            "link_id": "l_2",
            "watching": False,
            "learning_paused": {"reason": "too_many_files", "count": 12, "limit": 10},
        }
    )
    dirs = ListDirsOut(links=[link, paused])
    html = dirs._repr_html_()
    assert body_rows(html, "tabular-links") == 2 and "learning paused: too many files, 12 over the limit 10" in html
    assert html.count('<tr style="background:#fff4ce') == 1  # the paused link, not the watched one
    one_line(repr(dirs), "<ListDirsOut 2 linked folders: l_1 /data/exports (12 files); l_2")
    assert repr(ListDirsOut(links=[])) == "<ListDirsOut no linked folders>"
    files = DirFilesOut(
        link_id="l_1",
        files=[
            {
                "path": "a.csv",
                "source_uri": "sales/a.csv",
                "size": 2_500,
                "state": "learned",
                "revision": 2,
                "open_questions": 19,
            },
            {
                "path": "b.xls",
                "source_uri": "sales/b.xls",
                "size": 10,
                "state": "failed",
                "error_code": "FORMAT_UNAVAILABLE",
                "error_message": "<not> readable",
            },
        ],
    )
    one_line(repr(files), "<DirFilesOut l_1: 2 files (1 learned, 1 failed)>")
    html = files._repr_html_()
    assert body_rows(html, "tabular-files") == 2 and "<b>FORMAT_UNAVAILABLE</b> &lt;not&gt; readable" in html
    assert '<td class="tabular-num">2.5 kB</td>' in html and '<td class="tabular-num">19</td>' in html
    assert repr(UnlinkDirOut(found=True)) == "<UnlinkDirOut unlinked: the folder is untouched; its sources stay>"
    assert "2 sources deleted (restorable)" in UnlinkDirOut(found=True, sources_deleted=2)._repr_html_()


def test_a_streamed_whole_result_shows_its_columns_and_receipt_without_reading_the_rows(hundred):
    whole = hundred.engine.stream({"datasets": [{"source_uri": "orders"}], "namespace": "finance", "org": "acme"})
    try:
        one_line(repr(whole), "<Whole 4 columns (id, customer, amount, placed), streamed: .reader yields the rows>")
        html = whole._repr_html_()
        assert "amount<br><small" in html and '<p class="tabular-complete">' in html and "SELECT" in html
        assert f"receipt <code>{whole.receipt_id}</code>" in html  # the id knowledge.receipt answers
    finally:
        whole.close()
