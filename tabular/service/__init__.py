"""The service: HTTP (FastAPI) and MCP transports made from the op registry, tokens and tenants."""

from .auth import Grant, Tokens
from .http import create_app

__all__ = ["Grant", "Tokens", "create_app"]


def serve(engine, host: str | None = None, port: int | None = None, access_log: bool = False) -> None:
    """Run the HTTP service (and MCP at /mcp) until stopped; `tabular serve`."""
    import logging
    import sys

    import uvicorn

    settings = engine.settings
    host, port = host or settings.host, port or settings.port
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

    uvicorn.run(
        create_app(engine, tokens), host=host, port=port, access_log=access_log, log_level="info", http=PROTOCOL
    )
