"""The service: HTTP (FastAPI) and MCP transports made from the op registry, tokens and tenants.

Its names are imported when first used (module-level `__getattr__`): `tabular token` reads
service/auth.py without loading FastAPI, and nothing else of the CLI loads the service at all."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import setting_refused
from ..lazy_names import lazy
from ..settings import SettingInvalid, Settings

if TYPE_CHECKING:
    from .auth import Grant, Tokens
    from .http import create_app

_HOMES = {"Grant": "auth", "Tokens": "auth", "create_app": "http"}

__all__ = ["Grant", "Tokens", "create_app"]


__getattr__, __dir__ = lazy(__name__, _HOMES, __all__)


def listening(settings: Settings, host: str | None, port: int | None) -> Settings:
    """The settings with `tabular serve`'s --host and --port in place of TABULAR_HOST and
    TABULAR_PORT, held to the same rules: a port outside 1-65535 is refused before anything listens
    (VALIDATION_FAILED at settings.port), as from the environment."""
    try:
        return replace(
            settings,
            host=settings.host if host is None else host,
            port=settings.port if port is None else port,
        )
    except SettingInvalid as err:
        raise setting_refused(err) from None


def serve(engine, host: str | None = None, port: int | None = None, access_log: bool = False) -> None:
    """Run the HTTP service (and MCP at /mcp) until stopped; `tabular serve`."""
    import logging
    import sys

    import uvicorn

    from .auth import Tokens  # heavy: the op registry, only when serving
    from .http import create_app  # heavy: FastAPI, only when serving

    settings = listening(engine.settings, host, port)
    host, port = settings.host, settings.port
    tokens = Tokens.load(settings)
    engine.context.links.roots_for = tokens.link_roots  # an org's own link_roots, from the tokens file
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    if tokens.single_user and host not in ("127.0.0.1", "localhost", "::1"):
        logging.getLogger("tabular.service").warning(
            "serving on %s without a tokens file: anyone who reaches this address may read and write every namespace "
            "(set TABULAR_TOKENS)",
            host,
        )
    from .protocol import PROTOCOL  # heavy: uvicorn's protocols, only when serving

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            # SIGTERM or Ctrl-C: a link scan under way ends at its next file, so the calls in
            # flight answer and the server stops within close_seconds whatever a scan is doing.
            engine.context.links.halt()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        create_app(engine, tokens),
        host=host,
        port=port,
        access_log=access_log,
        log_level="info",
        http=PROTOCOL,
        # uvicorn annotates an int, but only hands it to asyncio.timeout, which takes seconds as a float
        timeout_graceful_shutdown=settings.close_seconds,  # type: ignore[arg-type]
    )
    Server(config).run()
