"""tabular/engine.py: connect, run any op by name (its input checked, org and namespace filled,
unknown keys named), stream a whole result, and close."""

import dataclasses
import os
import shlex
import subprocess
import sys

import pytest

import tabular
from tabular import ops
from tabular.engine import Engine, connect
from tabular.errors import NotFound, TooLarge, ValidationFailed


@pytest.fixture
def prices(engine, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("item,amount\n" + "".join(f"i{k},{k}.50\n" for k in range(150)))
    assert engine.namespace("acme", "finance").ingest_file(path, source_uri="prices.csv").state == "ready"
    return engine


def test_an_unknown_op_is_not_found_with_the_closest_name(engine):
    with pytest.raises(NotFound) as err:
        engine.call("knowledge.qurey", {})
    [item] = err.value.errors
    assert (item.path, item.received, item.did_you_mean[0]) == ("op", "knowledge.qurey", "knowledge.query")


def test_a_misspelled_key_is_refused_at_the_key_with_the_field_it_meant(engine):
    with pytest.raises(ValidationFailed) as err:
        engine.call("knowledge.get", {"source_ur": "prices.csv"})
    assert [(e.path, e.did_you_mean) for e in err.value.errors] == [("source_ur", ["source_uri"])]


def test_a_key_no_op_reads_is_served_and_named(prices):
    got = prices.call(
        "knowledge.get", {"org": "acme", "namespace": "finance", "source_uri": "prices.csv", "colour": "red"}
    )
    assert got["found"] and got["ignored_args"] == ["colour"]


def test_org_and_namespace_default_to_the_installs(engine, tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("x\n1\n")
    ns = engine.namespace(engine.settings.default_org, engine.settings.default_namespace)
    assert ns.ingest_file(path, source_uri="a.csv").state == "ready"
    assert engine.call("knowledge.get", {"source_uri": "a.csv"})["found"]
    assert not engine.call("knowledge.get", {"namespace": "other", "source_uri": "a.csv"})["found"]


def test_run_answers_the_ops_typed_model(engine):
    out = engine.run("knowledge.formats")
    assert isinstance(out, ops.REGISTRY["knowledge.formats"].output)


def test_an_op_out_of_memory_is_too_large_and_the_engine_serves_on(engine, monkeypatch):
    def hungry(ctx, body):
        raise MemoryError

    op = ops.REGISTRY["knowledge.formats"]
    monkeypatch.setitem(ops.REGISTRY, "knowledge.formats", dataclasses.replace(op, fn=hungry))
    with pytest.raises(TooLarge) as err:
        engine.call("knowledge.formats", {})
    assert err.value.code == "TOO_LARGE" and "knowledge.formats" in err.value.message
    monkeypatch.undo()
    assert engine.call("knowledge.formats", {})["default_format"] == "csv"


def test_a_stream_reads_every_row_past_the_limit(prices):
    plan = {"org": "acme", "namespace": "finance", "datasets": [{"source_uri": "prices.csv"}], "limit": 10}
    table = prices.stream(plan).reader.read_all()
    assert table.num_rows == 150 and table.column_names == ["item", "amount"]
    assert table.column("item").to_pylist()[-1] == "i149"


def test_a_closed_engine_may_be_closed_again(tmp_path):
    engine = connect(str(tmp_path / "home"))
    assert isinstance(engine, Engine)
    engine.close()
    engine.close()


def test_a_memory_home_is_a_throwaway(tmp_path):
    with tabular.connect(":memory:") as engine:
        assert engine.call("knowledge.list", {})["rows"] == []


@pytest.mark.parametrize("given, env", [({"ingest_workers": 0}, {}), ({}, {"TABULAR_JOB_ATTEMPTS": "three"})])
def test_a_setting_the_engine_cannot_run_with_is_validation_failed_naming_it(tmp_path, monkeypatch, given, env):
    """It was a ValueError, which the CLI answered INTERNAL ('this is a bug')."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(tabular.errors.ValidationFailed) as caught:
        tabular.connect(str(tmp_path / "home"), **given)
    [item] = caught.value.errors
    assert item.path == f"settings.{next(iter(given), 'job_attempts')}"
    assert "TABULAR_" in item.message


# -- a home that cannot be written: a coded error, never a raw OSError ---------------------

# Runs a command with the folder ($1) remounted read-only in a mount namespace of its own: a
# real EROFS for every write under it (root included, whom 0o555 does not stop), seen by nothing
# outside the command, gone when it ends.
READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && shift && exec "$@"'


def read_only(folder) -> list[str]:
    """The command prefix that runs a command with `folder` read-only, or a skip where this
    system gives no mount namespace (no unshare, no CAP_SYS_ADMIN, no user namespaces)."""
    user = [] if os.geteuid() == 0 else ["--map-root-user"]
    prefix = ["unshare", *user, "--mount", "--propagation", "private", "sh", "-c", READ_ONLY, "sh", str(folder)]
    try:
        probe = subprocess.run([*prefix, "sh", "-c", f"! touch {shlex.quote(str(folder))}/probe"], capture_output=True)
    except FileNotFoundError:
        pytest.skip("no unshare(1) to mount a folder read-only")
    if probe.returncode != 0:
        pytest.skip(f"this system mounts no folder read-only for a test: {probe.stderr.decode().strip()[:200]}")
    return prefix


CONNECT = (
    "import sys, tabular\n"
    "try:\n"
    "    tabular.connect(sys.argv[1])\n"
    "except tabular.TabularError as err:\n"
    "    print(type(err).__name__, err.code, err.status, err.message)\n"
)


@pytest.mark.parametrize("made", [False, True], ids=["a new home", "a home already made"])
def test_a_home_on_a_read_only_file_system_is_storage_unwritable_in_python_and_the_cli(tmp_path, made):
    """connect() raised the OSError of its first write (mkdir, the owner's lock file), and the CLI
    said "Read-only file system; check the path and its permissions" without a code."""
    folder = tmp_path / "mounted"
    folder.mkdir()
    home = folder / "home"
    if made:
        connect(str(home)).close()
    prefix = read_only(folder)
    said = subprocess.run([*prefix, sys.executable, "-c", CONNECT, str(home)], capture_output=True, text=True)
    assert said.returncode == 0 and "Traceback" not in said.stderr, said.stderr
    kind, code, status, message = said.stdout.split(" ", 3)
    assert (kind, code, status) == ("StorageUnwritable", "STORAGE_UNWRITABLE", "503")
    assert str(home) in message and "Read-only file system" in message
    cli = subprocess.run(
        [*prefix, sys.executable, "-m", "tabular.cli", "--home", str(home), "list"], capture_output=True, text=True
    )
    assert cli.returncode == 2 and cli.stdout == ""
    [line] = cli.stderr.splitlines()
    assert line.startswith("error STORAGE_UNWRITABLE: ") and str(home) in line
    assert "remount" in line and "permission" in line  # what to do, not just what broke
    assert "INTERNAL" not in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a 0o555 folder; the read-only mount test stands in")
def test_a_home_this_user_may_not_write_is_storage_unwritable(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(tabular.errors.StorageUnwritable) as caught:
            connect(str(folder / "home"))
    finally:
        folder.chmod(0o755)
    assert "Permission denied" in caught.value.message and caught.value.status == 503


@pytest.mark.parametrize("where", ["under", "at"], ids=["a home under a file", "a home that is a file"])
def test_a_home_that_can_be_no_folder_is_validation_failed_at_home(tmp_path, where):
    """A file where the home or a folder above it should be (ENOTDIR, EEXIST) is the path given
    that is wrong, not the disk: VALIDATION_FAILED at `home`, in Python and the CLI."""
    (tmp_path / "a-file").write_text("not a folder")
    home = tmp_path / "a-file" / "home" if where == "under" else tmp_path / "a-file"
    with pytest.raises(ValidationFailed) as caught:
        connect(str(home))
    [item] = caught.value.errors
    assert item.path == "home" and item.received == str(home)
    cli = subprocess.run(
        [sys.executable, "-m", "tabular.cli", "--home", str(home), "list"], capture_output=True, text=True
    )
    assert cli.returncode == 2
    [line] = cli.stderr.splitlines()
    assert line.startswith("error VALIDATION_FAILED: ") and "home: " in line


def test_every_ops_input_names_its_org_and_namespace():
    """Engine.run fills org and namespace on every op's input and reads them to name a damaged
    snapshot; an op whose input lacked either would fail there, not at its own code."""
    lacking = {
        name: sorted({"org", "namespace"} - set(op.input.model_fields))
        for name, op in ops.REGISTRY.items()
        if {"org", "namespace"} - set(op.input.model_fields)
    }
    assert lacking == {}
