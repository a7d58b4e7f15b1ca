"""Which proposer answers: the chat endpoint when one is configured, else the built-in one."""

from __future__ import annotations

from .builtin import BuiltinProposer
from .chat import ChatProposer
from .proposal import Proposer


def choose(settings) -> Proposer:
    """The chat endpoint when one is configured (TABULAR_LLM_BASE_URL), else the built-in."""
    if settings.llm_base_url:
        return ChatProposer(settings.llm_base_url, settings.llm_api_key, settings.llm_model, settings.llm_seconds)
    return BuiltinProposer()
