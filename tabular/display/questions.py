"""Open questions as a person answers them: those of one kind that offer the same options (19
columns of 0s and 1s each asking "a number, or a yes/no flag?") are one entry naming every column,
with the one approval that answers them all, in Python and on the command line. The answers keep
one question per column (SPEC §4); only the views group them, and every view counts the questions
per column (open_count, open_said)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from .html import clip, plural


@dataclass(frozen=True)
class Asked:
    """Questions of one kind with the same options and the same held typing, in the order the
    dataset asks them (a question of its own is a group of one)."""

    questions: list

    @property
    def first(self):
        return self.questions[0]

    @property
    def columns(self) -> list[str]:
        return [q.column for q in self.questions]

    @property
    def alike(self) -> bool:
        """Every question says the same words (else each column's are shown)."""
        return len({q.question for q in self.questions}) == 1

    def asks(self) -> str:
        """'ask the same question' or, where each column says its own values, 'ask alike'."""
        return "ask the same question" if self.alike or len(self.questions) == 1 else "ask alike"

    def question(self) -> str:
        """What the group asks: its columns' one question, or the choice they share with the first
        column's question for an example."""
        q = self.first
        if self.alike or len(self.questions) == 1:
            return q.question
        choices = " or ".join(option_words(o) + (" (held now)" if self.held(o) else "") for o in q.options)
        return f"{choices}? Each on its own values, e.g. {q.column}: {q.question}"

    def rejects(self, k: int) -> str:
        """The rows option `k` rejects: one count, or the least and most of the group's columns."""
        counts = [q.options[k].rows_rejected for q in self.questions]
        low, high = min(counts), max(counts)
        return f"{low:,}" if low == high else f"{low:,} to {high:,}"

    def held(self, option) -> bool:
        return (option.type, option.format) == (self.first.current.type, self.first.current.format)

    def changes(self, option) -> tuple[dict[str, str], dict[str, str]]:
        """The approval's columns and formats that give every column of the group `option`: its
        type where the type changes (the type alone reads the values as the option does), its
        format where only the format does (a date order, a decimal mark). The option held now
        names the columns at their reading now (its format, or its type where it has none): an
        approval answers the questions on the columns it names and no other (issue 56), where
        one naming nothing settles every open question of the dataset. A question on the whole
        table names no column."""
        held = self.first.current
        columns = [c for c in self.columns if c]
        if option.type != held.type or (self.held(option) and not option.format):
            return dict.fromkeys(columns, option.type), {}
        return {}, dict.fromkeys(columns, option.format)


def asked(questions: list) -> list[Asked]:
    """The questions grouped: same kind, same held type and format, same options (type and
    format, in order); a table-wide question (no column) stands alone."""
    groups: dict[tuple, list] = {}
    for q in questions:
        key = (
            (q.kind, q.current.type, q.current.format, tuple((o.type, o.format) for o in q.options))
            if q.column
            else (q.id,)
        )
        groups.setdefault(key, []).append(q)
    return [Asked(qs) for qs in groups.values()]


def open_count(questions: list) -> int:
    """How many questions are open: one per column asked (and one for a question on the whole
    table), as the answer holds them, whether or not a view shows alike ones as one entry. The
    page, the notebook and the command line all count so."""
    return len(questions)


def open_said(questions: list) -> str:
    """The count in words, the same on every view: 'no open question', '1 open question', or '3
    open questions, shown as 2 (columns that ask alike are one entry)'."""
    count = open_count(questions)
    if not count:
        return "no open question"
    said = plural(count, "open question")
    entries = len(asked(questions))
    return said if entries == count else f"{said}, shown as {entries:,} (columns that ask alike are one entry)"


def _mapping(values: dict[str, str]) -> str:
    """A dict as Python text: dict.fromkeys([...], value) when every value is the same."""
    if len(values) > 1 and len(set(values.values())) == 1:
        return f"dict.fromkeys({list(values)!r}, {next(iter(values.values()))!r})"
    return repr(values)


def python_call(group: Asked, option, source_uri: str | None, d, several: bool) -> str:
    """The ns.approve call that answers the group with `option` (held: the call that keeps its
    columns as they are, and answers no other question). `source_uri` None: the answer did not
    say it (written `source_uri`)."""
    args = [repr(source_uri) if source_uri else "source_uri", repr(d.snapshot_id)]
    columns, formats = group.changes(option)
    args += [f"columns={_mapping(columns)}"] if columns else []
    args += [f"formats={_mapping(formats)}"] if formats else []
    if several:
        args.append(f"dataset_id={d.dataset_id!r}")
    return f"ns.approve({', '.join(args)})"


def command(group: Asked, option, source_uri: str | None, d, several: bool) -> str:
    """The `tabular approve` command that answers the group with `option`."""
    words = ["tabular", "approve", source_uri or "SOURCE"] + ([d.dataset_id] if several else [])
    columns, formats = group.changes(option)
    for flag, values in (("--set", columns), ("--format", formats)):
        for name, value in values.items():
            words += [flag, f"{name}={value}"]
    return shlex.join(words)


def option_words(option) -> str:
    return f"{option.type} {option.format}".strip()


def column_list(group: Asked, most: int = 80) -> str:
    """'a, b, c' (cut with … past `most` characters, then how many)."""
    said = clip(", ".join(group.columns), most)
    return said if not said.endswith("…") else f"{said} ({plural(len(group.columns), 'column')})"


def _names_option(option, choice: str) -> bool:
    """`choice` names the option by its type, its format, or both ('bool', '%m/%d/%Y', 'bool 1/0')."""
    return choice in (option.type, option.format, option_words(option))


def answer_kind(questions: list, kind: str, choice: str) -> tuple[dict[str, str], dict[str, str]]:
    """The approval's columns and formats that answer every open question of `kind` with the
    option `choice` names (the held one: its columns as they are now, answered). ValueError,
    in words, when the dataset asks no such question or an option of it is not named."""
    of_kind = [g for g in asked(questions) if g.first.kind == kind]
    if not of_kind:
        kinds = sorted({q.kind for q in questions})
        raise ValueError(f"no open question of kind {kind!r} here; asked: {', '.join(kinds) or 'none'}")
    columns, formats = {}, {}
    for group in of_kind:
        named = [o for o in group.first.options if _names_option(o, choice)]
        if len(named) != 1:
            offered = " or ".join(repr(option_words(o)) for o in group.first.options)
            how = "names none" if not named else "names more than one"
            raise ValueError(f"{choice!r} {how} of the options of {column_list(group)}: {offered}")
        more_columns, more_formats = group.changes(named[0])
        columns.update(more_columns)
        formats.update(more_formats)
    return columns, formats


def kind_command(group: Asked, option, groups: list[Asked], source_uri: str | None, d, several: bool) -> str:
    """`tabular approve SOURCE --answer KIND=CHOICE` where it answers this group and no other
    (the group is the only one of its kind), else `command`'s flag per column."""
    if len(group.questions) < 2 or sum(g.first.kind == group.first.kind for g in groups) > 1:
        return command(group, option, source_uri, d, several)
    choice = option.type if sum(o.type == option.type for o in group.first.options) == 1 else option.format
    words = ["tabular", "approve", source_uri or "SOURCE"] + ([d.dataset_id] if several else [])
    return shlex.join([*words, "--answer", f"{group.first.kind}={choice}"])
