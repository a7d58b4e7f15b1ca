"""The real service in a subprocess (uvicorn on a free loopback port), and what the tests send it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
CSV = ROOT / "fixtures" / "csv"
FINISHED = ("ready", "partial", "failed", "cancelled")

# Tokens of the tenancy tests: name → (token, org, namespaces, role).
TOKENS = {
    "acme-writer": ("tok-acme-writer", "acme", ["finance"], "writer"),
    "acme-viewer": ("tok-acme-viewer", "acme", ["finance"], "viewer"),
    "acme-admin": ("tok-acme-admin", "acme", ["*"], "admin"),
    "globex-writer": ("tok-globex-writer", "globex", ["*"], "writer"),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`tabular serve` on a free port; `kill()` is SIGKILL, `stop()` a clean shutdown."""

    def __init__(self, home: Path, **settings):
        self.home = Path(home)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **{f"TABULAR_{k.upper()}": str(v) for k, v in settings.items()}}
        self.log = self.home.parent / f"server-{self.port}.log"
        self.proc: subprocess.Popen | None = None
        self.preexec_fn = None  # run in the child before exec (a resource limit, tests/service/test_faults.py)

    def start(self) -> Server:
        self.home.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tabular.cli", "--home", str(self.home), "serve", "--port", str(self.port)],
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            preexec_fn=self.preexec_fn,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("the server did not answer /healthz in 60 s")

    def client(self, token: str | None = None, **kw) -> httpx.Client:
        headers = {**({"Authorization": f"Bearer {token}"} if token else {}), **kw.pop("headers", {})}
        return httpx.Client(base_url=self.url, headers=headers, timeout=kw.pop("timeout", 60), **kw)

    def rss_peak_kib(self) -> int:
        """The server process's peak resident memory so far (VmHWM)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise RuntimeError("no VmHWM")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


def upload(c: httpx.Client, path: Path, **params) -> dict:
    with path.open("rb") as f:
        r = c.post("/v1/knowledge.upload", params={"filename": path.name, **params}, content=f)
    assert r.status_code == 200, r.text
    return r.json()


def start_ingest(c: httpx.Client, path: Path, source_uri: str, **body) -> str:
    up = upload(c, path, **{k: body[k] for k in ("org", "namespace") if k in body})
    r = c.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": source_uri, **body})
    assert r.status_code == 200, r.text
    return r.json()["ingestion_id"]


def status(c: httpx.Client, ingestion_id: str, **body) -> dict:
    r = c.post("/v1/knowledge.ingest_status", json={"ingestion_id": ingestion_id, **body})
    assert r.status_code == 200, r.text
    return r.json()


def wait_for(
    c: httpx.Client, ingestion_id: str, states=FINISHED, seconds: float = 300, **body
) -> dict:  # a hang guard, not a speed claim
    deadline = time.monotonic() + seconds
    while True:
        got = status(c, ingestion_id, **body)
        if got["state"] in states or time.monotonic() > deadline:
            return got
        time.sleep(0.01)


def ingest(c: httpx.Client, path: Path, source_uri: str, **body) -> dict:
    return wait_for(
        c, start_ingest(c, path, source_uri, **body), **{k: body[k] for k in ("org", "namespace") if k in body}
    )


def envelope(r: httpx.Response, status_code: int, code: str) -> dict:
    """Assert the SPEC §2 error envelope and answer its detail."""
    assert r.status_code == status_code, r.text
    detail = r.json()["detail"]
    assert detail["code"] == code, detail
    assert detail["message"]
    assert detail["request_id"] == r.headers["x-request-id"]
    return detail
