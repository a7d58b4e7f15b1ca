"""The chat proposer: an OpenAI-compatible chat-completions endpoint, shown the plan's JSON schema
and the datasets' schemas, asked for one plan; told the validation errors once if it fails."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

from planner.models import QueryPlan

from .proposal import Candidate, Proposal
from .schemas import DatasetSchema

INSTRUCTIONS = """You turn a task in words into ONE plan for knowledge.query, a typed query language over the datasets below.
Rules:
- Read only the datasets given; name each in the plan's `datasets` with its source_uri, dataset_id and alias.
- Name columns as "<alias>.<column>" exactly as listed; filter values are read as the column's type (dates "YYYY-MM-DD").
- Every dataset after the first needs one join on key columns of the same type.
- The plan must answer the task over every row: use aggregates (sum, count, avg, min, max, median …) and group_by (with bucket year/quarter/month for dates) rather than listing rows.
- Say which result columns answer the task (the others are evidence: a row's position, the two values of a difference).
Answer with one JSON object and nothing else, either
  {"plan": <the plan>, "answer_columns": [<the names of the result columns that answer the task>]}
or, when the task could mean several calculations with different answers,
  {"abstain": "ambiguous", "clarification": "<the question to ask, naming the candidates>"}
or, when the datasets cannot answer it,
  {"abstain": "invalid_plan", "clarification": "<why>"}.
The plan's JSON schema:
"""


class ChatProposer:
    name = "chat"

    def __init__(self, base_url: str, api_key: str = "", model: str = "", seconds: float = 60.0):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key, self.model, self.seconds = api_key, model, seconds

    def propose(self, task: str, schemas: list[DatasetSchema]) -> Proposal:
        schema = json.dumps(QueryPlan.model_json_schema(by_alias=True), separators=(",", ":"))
        datasets = json.dumps([s.for_prompt() for s in schemas], default=str, ensure_ascii=False)
        messages = [
            {"role": "system", "content": INSTRUCTIONS + schema},
            {"role": "user", "content": f"Datasets:\n{datasets}\n\nTask: {task}"},
        ]
        return self._ask(messages)

    def repair(self, task, schemas, failed: Proposal, plan, errors: list[dict]) -> Proposal:
        if not failed.transcript:
            return Proposal(why="no conversation to repair")
        said = json.dumps(errors, default=str, ensure_ascii=False)
        messages = [
            *failed.transcript,
            {
                "role": "user",
                "content": f"That plan failed validation with these errors:\n{said}\nAnswer with the corrected plan, as the same JSON object.",
            },
        ]
        return self._ask(messages)

    def _ask(self, messages: list[dict]) -> Proposal:
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0}).encode()
        headers = {
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}),
        }
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.seconds) as response:
                content = json.loads(response.read())["choices"][0]["message"]["content"]
        except (urllib.error.URLError, TimeoutError, OSError, ValueError, KeyError, IndexError, TypeError) as err:
            return Proposal(why=f"the chat endpoint {self.url} gave no plan: {type(err).__name__}: {err}")
        transcript = [*messages, {"role": "assistant", "content": str(content)}]
        said = _json(str(content))
        if isinstance(said, dict) and said.get("abstain") in ("ambiguous", "invalid_plan"):
            return Proposal(
                abstain=said["abstain"],
                question=str(said.get("clarification") or ""),
                why=str(said.get("clarification") or ""),
                transcript=transcript,
            )
        plan = said.get("plan", said) if isinstance(said, dict) else said
        named = said.get("answer_columns") if isinstance(said, dict) and "plan" in said else None
        answer = tuple(n for n in named if isinstance(n, str)) if isinstance(named, list) else ()
        return Proposal((Candidate(plan, answer=answer),), transcript=transcript)


def _json(text: str):
    """The JSON object in a reply, fences and prose around it allowed; the text itself when none."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    candidate = fenced.group(1) if fenced else text[text.find("{") : text.rfind("}") + 1] if "{" in text else text
    try:
        return json.loads(candidate)
    except ValueError:
        return text
