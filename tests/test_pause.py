"""tabular/pause.py: the test-only pause point stops only where TABULAR_PAUSE_AT names, and says so."""

from __future__ import annotations

from tabular import pause


def test_a_point_not_named_passes_without_a_word(monkeypatch, capsys):
    monkeypatch.setenv("TABULAR_PAUSE_AT", "publish")
    pause.at("seal")
    assert capsys.readouterr().err == ""


def test_no_pause_point_set_passes_everywhere(monkeypatch, capsys):
    monkeypatch.delenv("TABULAR_PAUSE_AT", raising=False)
    pause.at("publish")
    assert capsys.readouterr().err == ""


def test_the_named_point_says_so_on_stderr_and_waits_as_long_as_told(monkeypatch, capsys):
    slept = []
    monkeypatch.setenv("TABULAR_PAUSE_AT", "publish")
    monkeypatch.setenv("TABULAR_PAUSE_SECONDS", "0.25")
    monkeypatch.setattr(pause.time, "sleep", slept.append)
    pause.at("publish")
    assert capsys.readouterr().err == "paused at publish\n"
    assert slept == [0.25]
