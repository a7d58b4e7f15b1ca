"""Which proposer answers (synthesize/proposers.py): the chat endpoint when one is configured."""

from __future__ import annotations

from types import SimpleNamespace

from tabular.synthesize.builtin import BuiltinProposer
from tabular.synthesize.chat import ChatProposer
from tabular.synthesize.proposers import choose


def settings(url):
    return SimpleNamespace(llm_base_url=url, llm_api_key="k", llm_model="m", llm_seconds=5.0)


def test_no_endpoint_is_the_builtin_proposer():
    assert isinstance(choose(settings("")), BuiltinProposer)


def test_an_endpoint_is_the_chat_proposer_at_its_completions_path():
    chosen = choose(settings("http://127.0.0.1:9/v1/"))
    assert isinstance(chosen, ChatProposer)
    assert chosen.url == "http://127.0.0.1:9/v1/chat/completions"
    assert (chosen.api_key, chosen.model, chosen.seconds) == ("k", "m", 5.0)
