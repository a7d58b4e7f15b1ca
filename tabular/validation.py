"""Input errors in words: pydantic's validation errors, and keys no model takes, turned into
VALIDATION_FAILED items with the JSON path, what was expected (in words, not type names), what
was received and the close names where a name was wrong."""

from __future__ import annotations

import difflib
import enum
import re
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ForwardRef, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Tag

from .errors import TAG_PREFIXES, ErrorItem, ValidationFailed, close_names, json_path

# How alike an unknown key and a field must be for the key to be taken as that field misspelled
# (difflib's ratio, case aside): one letter added, dropped or changed in a word of five or more.
MISSPELLED = 0.8


def misspelling_of(key: str, fields: list[str]) -> str | None:
    """The field `key` is a close misspelling of (`aggregate` for `aggregates`, `Limit` for
    `limit`), or None: a key merely like a field (`comment`, `compute`) is not one."""
    best = close_names(key, fields)[:1]
    if best and difflib.SequenceMatcher(None, key.lower(), best[0].lower()).ratio() >= MISSPELLED:
        return best[0]
    return None


def field_names(model: type[BaseModel]) -> list[str]:
    """A model's fields as a caller writes them (`as`, not `as_`)."""
    return [info.alias or name for name, info in model.model_fields.items()]


def one_of(choices: list[str]) -> str:
    """`one of: count, sum, avg`; choices that are not plain words quoted (`one of: '.', ','`)."""
    plain = all(re.fullmatch(r"[\w-]+", c) for c in choices)
    return "one of: " + ", ".join(c if plain else repr(c) for c in choices)


def not_a_field(key: str, fields: list[str], parent: str, where: str, suggested: list[str]) -> ErrorItem:
    """An unknown key: the path to it, what the object takes, the fields it is close to."""
    return ErrorItem(
        f"{parent}.{key}" if parent else key,
        f"{key!r} is not a field of {where}",
        expected=one_of(fields),
        received=key,
        did_you_mean=suggested or None,
    )


# The message of a required field not given.
MISSING = "required field missing"


# Fields any op may carry that are identity or transport, never plan clauses (SPEC §2).
TRANSPORT_FIELDS = ("org", "namespace", "agent", "user_id", "session_id", "request_id")


def refused_keys(body: dict, model_type: type[BaseModel], what: str) -> list[ErrorItem]:
    """The body's unknown keys that are problems: in a plan (a model marked `closed`, SPEC §2)
    every key that is no clause, identity or transport field (an unread `filters` would answer
    every row); elsewhere a close misspelling of a field (`aggregate` for `aggregates`), since
    running without it would answer another question. Other unknown keys are served and named
    in `ignored_args`."""
    fields = field_names(model_type)
    known = set(fields) | set(model_type.model_fields)
    closed = bool(getattr(model_type, "closed", False))
    items = []
    for key in body:
        if not isinstance(key, str) or key in known:
            continue
        if closed and key not in TRANSPORT_FIELDS:
            items.append(not_a_field(key, fields, "", what or "the plan", close_names(key, fields)))
            continue
        field = misspelling_of(key, fields)
        if field is not None:
            items.append(not_a_field(key, fields, "", what or "the input", [field]))
    return items


def validation_failed(items: list[ErrorItem]) -> ValidationFailed:
    """The VALIDATION_FAILED error of `items`, its message naming the first."""
    return ValidationFailed(
        f"{len(items)} problem(s) with the input: {items[0].message}" if items else "the input is not valid", items
    )


# What pydantic's type errors expected, in words.
_EXPECTED = {
    **dict.fromkeys(["string_type", "string_sub_type", "string_unicode"], "a string"),
    **dict.fromkeys(["int_type", "int_parsing", "int_from_float", "int_parsing_size"], "an integer"),
    **dict.fromkeys(["float_type", "float_parsing", "decimal_type", "decimal_parsing"], "a number"),
    "finite_number": "a finite number",
    **dict.fromkeys(["bool_type", "bool_parsing"], "true or false"),
    **dict.fromkeys(["list_type", "tuple_type", "set_type", "frozen_set_type", "iterable_type"], "a list"),
    **dict.fromkeys(
        ["dict_type", "mapping_type", "model_type", "model_attributes_type", "dataclass_type"], "an object"
    ),
    "none_required": "null",
    **dict.fromkeys(
        ["date_type", "date_parsing", "date_from_datetime_parsing", "date_from_datetime_inexact"], "a date (YYYY-MM-DD)"
    ),
    **dict.fromkeys(
        ["datetime_type", "datetime_parsing", "datetime_from_date_parsing", "datetime_object_invalid"],
        "a date and time (ISO 8601)",
    ),
    "timezone_aware": "a date and time with a UTC offset",
    **dict.fromkeys(["time_type", "time_parsing"], "a time (HH:MM:SS)"),
    **dict.fromkeys(["time_delta_type", "time_delta_parsing"], "a duration (ISO 8601: PT1H30M)"),
}
# Bounds: (what came is …, what was expected), from the error's context.
_BOUNDS = {
    "greater_than": ("too small", "more than {gt}"),
    "greater_than_equal": ("too small", "at least {ge}"),
    "less_than": ("too large", "less than {lt}"),
    "less_than_equal": ("too large", "at most {le}"),
    "multiple_of": ("not a multiple of {multiple_of}", "a multiple of {multiple_of}"),
    "string_too_short": ("too short", "at least {min_length} character(s)"),
    "string_too_long": ("too long", "at most {max_length} characters"),
    "too_short": ("too few", "at least {min_length} item(s)"),
    "too_long": ("too many", "at most {max_length} item(s)"),
    "string_pattern_mismatch": ("not of the form asked", "text matching {pattern}"),
}
_TYPE_WORDS = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    dict: "an object",
    list: "a list",
    tuple: "a list",
    set: "a list",
    type(None): "null",
}


def _shown(value: Any) -> str:
    """A value as a message quotes it: short text in quotes, JSON's words for the rest."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "…")
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "a list"
    return "an object" if isinstance(value, dict) else f"a {type(value).__name__}"


def _plural(text: str) -> str:
    """`1 item(s)` → `1 item`, `2 item(s)` → `2 items`."""
    return re.sub(r"\(s\)", "s", re.sub(r"(?<![\d.])1 (\w+)\(s\)", r"1 \1", text))


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _alternatives(tp: Any, namespace: dict) -> list[tuple[Any, str | None]]:
    """A type's alternatives, each with the Tag it carries: Annotated and None taken off, unions flattened."""
    out: list[tuple[Any, str | None]] = []
    stack: list[tuple[Any, str | None]] = [(tp, None)]
    while stack:
        t, tag = stack.pop()
        if isinstance(t, (str, ForwardRef)):
            t = namespace.get(t if isinstance(t, str) else t.__forward_arg__)
            if t is None:
                continue
        if get_origin(t) is Annotated:
            base, *meta = get_args(t)
            stack.append((base, next((m.tag for m in meta if isinstance(m, Tag)), tag)))
        elif get_origin(t) in (Union, types.UnionType):
            stack.extend((a, tag) for a in reversed(get_args(t)) if a is not type(None))
        else:
            out.append((t, tag))
    return out


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _namespace(model: type) -> dict:
    return vars(sys.modules.get(model.__module__)) if model.__module__ in sys.modules else {}


def _field(model: type[BaseModel], key: str) -> Any:
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            return info
    return None


# What pydantic puts in a location to say which alternative of a union it tried (`list[...]`,
# `tagged-union[...]`, `function-after[...]`, a model's name): not a key of the input.
_LABEL = re.compile(r"^[\w-]+\[.*\]$|^(str|int|float|bool|none|any|list|dict|decimal|date|datetime|time|timedelta)$")


@dataclass
class _Walked:
    """A pydantic location read against the model: each part's kind (field, index, key, label)
    and the types found before the last part and at it."""

    kinds: list[str]
    parent: list[tuple[Any, dict]]
    found: list[tuple[Any, dict]]


def _walk(model: type[BaseModel] | None, loc: tuple) -> _Walked:
    kinds: list[str] = []
    here: list[tuple[Any, dict]] = [(model, _namespace(model))] if model is not None else []
    parent = here
    for part in loc:
        parent = here
        alts = [(t, tag, ns) for tp, ns in here for t, tag in _alternatives(tp, ns)]
        dicts = [
            (get_args(t)[1] if len(get_args(t)) == 2 else Any, ns)
            for t, _, ns in alts
            if t is dict or get_origin(t) is dict
        ]
        if part == "[key]":
            kinds.append("label")
            here = []
        elif isinstance(part, int):
            items = [
                (get_args(t)[0] if get_args(t) else Any, ns)
                for t, _, ns in alts
                if t in (list, tuple, set) or get_origin(t) in (list, tuple, set, frozenset)
            ]
            kinds.append("index" if items or not dicts else "key")
            here = items or dicts
        elif fields := [(_field(t, part), t) for t, _, _ in alts if _is_model(t) and _field(t, part)]:
            kinds.append("field")
            here = [(info.annotation, _namespace(t)) for info, t in fields]
        elif tagged := [(t, ns) for t, tag, ns in alts if tag == part]:
            kinds.append("label")
            here = tagged
        elif len(alts) > 1 and (
            tagged := [
                (t, ns) for t, _, ns in alts if _is_model(t) and any(part in _literals(t, f) for f in t.model_fields)
            ]
        ):
            kinds.append(
                "label"
            )  # a union told apart by a field's value (Field(discriminator=…)): pydantic names the value
            here = tagged
        elif dicts:
            kinds.append("key")
            here = dicts
        elif len(alts) > 1 and (_LABEL.match(part) or any(_is_model(t) and t.__name__ == part for t, _, _ in alts)):
            kinds.append("label")  # the union's alternatives stay: the next part names a key of one of them
        elif model is None and part.startswith(TAG_PREFIXES):
            kinds.append("label")  # planner/models.py's tags, when no model says so
        else:
            kinds.append("key")
            here = []
    return _Walked(kinds, parent, here)


def _literals(model: type[BaseModel], field: str) -> list[str]:
    """The values a model's Literal field takes ([] for any other field)."""
    info = _field(model, field)
    if info is None:
        return []
    return [
        str(v)
        for t, _ in _alternatives(info.annotation, _namespace(model))
        if get_origin(t) is Literal
        for v in get_args(t)
    ]


def _choices(walked: _Walked, ctx: dict) -> list[str]:
    """The values a literal or an enum takes: from the model, else from pydantic's own list."""
    for t, _ns in walked.found:
        for alt, _tag in _alternatives(t, _ns):
            if get_origin(alt) is Literal:
                return [str(v) for v in get_args(alt)]
            if isinstance(alt, type) and issubclass(alt, enum.Enum):
                return [str(m.value) for m in alt]
    return re.findall(r"'((?:[^'\\]|\\.)*)'", str(ctx.get("expected", "")))


def _type_words(tp: Any, namespace: dict) -> str | None:
    """A field's type in words, for `expected` of a missing field."""
    words = []
    for t, _tag in _alternatives(tp, namespace):
        if get_origin(t) is Literal:
            word = one_of([str(v) for v in get_args(t)])
        elif isinstance(t, type) and issubclass(t, enum.Enum):
            word = one_of([str(m.value) for m in t])
        elif _is_model(t) or t is dict or get_origin(t) is dict:
            word = "an object"
        elif t in (list, tuple, set) or get_origin(t) in (list, tuple, set, frozenset):
            word = "a list"
        else:
            word = _TYPE_WORDS.get(t, "a value")
        if word not in words:
            words.append(word)
    return " or ".join(words) if words else None


def not_one_of(path: str, came, noun: str, choices: list[str], received=None) -> ErrorItem:
    """A value that is none of the choices: said with the choices and the close names."""
    return ErrorItem(
        path,
        f"{_shown(came)} is not {noun}; expected {one_of(choices)}",
        expected=one_of(choices),
        received=received,
        did_you_mean=close_names(came, choices) if isinstance(came, str) else None,
    )


def _item(e: Mapping[str, Any], model: type[BaseModel] | None, what: str) -> tuple[_Walked, tuple, ErrorItem]:
    """One pydantic error as an ErrorItem; with the location read against the model, and that
    location with the union labels taken out."""
    loc = tuple(e.get("loc", ()))
    walked = _walk(model, loc)
    clean = tuple(p for p, kind in zip(loc, walked.kinds) if kind != "label")
    path = json_path(clean)
    kind, ctx, came = e.get("type", ""), e.get("ctx") or {}, e.get("input")
    received = None if isinstance(came, dict) else came
    shown, msg = _shown(came), str(e.get("msg", ""))
    last_field = max((i for i, k in enumerate(walked.kinds) if k == "field"), default=None)
    if kind in ("literal_error", "enum"):
        choices = _choices(walked, ctx)
        # Named by its field where the choice is the field's value (or an item of it), not a dict's value.
        noun = "one of the choices"
        if last_field is not None and all(k in ("index", "label") for k in walked.kinds[last_field + 1 :]):
            noun = _a(str(loc[last_field]))
        item = not_one_of(path, came, noun, choices, received)
    elif kind == "missing":
        found = [_type_words(t, ns) for t, ns in walked.found]
        item = ErrorItem(path, MISSING, expected=next((w for w in found if w), None))
    elif kind == "extra_forbidden":
        key = str(loc[-1]) if loc else ""
        names = list(
            dict.fromkeys(
                n
                for t, ns in walked.parent
                for alt, _ in _alternatives(t, ns)
                if _is_model(alt)
                for n in field_names(alt)
            )
        )
        parent = json_path(clean[:-1])
        item = (
            not_a_field(key, names, parent, parent or what or "the input", close_names(key, names))
            if names
            else ErrorItem(path, f"{key!r} is not a field of {parent or what or 'the input'}", received=key)
        )
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        field = str(ctx.get("discriminator", "")).strip("'\"")
        tags = re.findall(r"'((?:[^'\\]|\\.)*)'", str(ctx.get("expected_tags", ""))) or list(
            dict.fromkeys(
                v
                for t, ns in walked.found
                for alt, _ in _alternatives(t, ns)
                if _is_model(alt)
                for v in _literals(alt, field)
            )
        )
        tag_path = json_path((*clean, field)) if field else path
        if kind == "union_tag_not_found":
            item = ErrorItem(tag_path, MISSING, expected=one_of(tags))
        else:
            tag = ctx.get("tag", came)
            item = not_one_of(tag_path, tag, _a(field or "kind"), tags, tag)
    elif kind in _EXPECTED:
        item = ErrorItem(path, f"{shown} is not {_EXPECTED[kind]}", expected=_EXPECTED[kind], received=received)
    elif kind in _BOUNDS:
        bounds = {
            k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in ctx.items()
        }  # "at least 0", not "0.0"
        problem, expected = (text.format(**bounds) for text in _BOUNDS[kind])
        if kind == "string_too_short" and ctx.get("min_length") == 1:
            problem, expected = "empty", "a non-empty string"
        if kind in ("too_short", "too_long") and isinstance(came, (list, tuple)):
            message = "an empty list" if not came else f"{len(came)} item(s), {problem}"
        else:
            message = f"{shown} is {problem}"
        item = ErrorItem(path, _plural(message), expected=_plural(expected), received=received)
    elif kind == "expr":  # planner/models.py's expression union: the value has none of its shapes
        item = ErrorItem(path, f"{shown} is not an expression", expected=msg, received=received)
    elif kind in ("value_error", "assertion_error"):
        item = ErrorItem(path, re.sub(r"^(Value error|Assertion failed), ", "", msg), received=received)
    elif kind == "json_invalid":
        item = ErrorItem(path, "not JSON", expected="a JSON object")
    elif msg.startswith("Input should be "):
        expected = msg.removeprefix("Input should be ").replace("a valid ", "a ").split(",")[0]
        item = ErrorItem(path, f"{shown} is not {expected}", expected=expected, received=received)
    else:
        item = ErrorItem(path, msg, received=received)
    return walked, clean, item


def validation_items(
    errors: Sequence[Mapping[str, Any]], model: type[BaseModel] | None = None, what: str = ""
) -> list[ErrorItem]:
    """Pydantic's errors (`ValidationError.errors()`) as SPEC §2 items, in words: what was
    expected ("one of: eq, ne, …", "a string", "an integer"; a field missing), what came, and the
    close names of a misspelled choice or key. `model` is what was validated (a location is read
    against its fields), `what` names the input's top in messages ("knowledge.query")."""
    read = [(tuple(e.get("loc", ())), e.get("type"), *_item(e, model, what)) for e in errors]
    kept = []
    for loc, kind, walked, clean, item in read:
        # A union's alternative that did not take the value's shape at all (a list where an object
        # came) says nothing when another alternative got further in.
        if walked.kinds and walked.kinds[-1] == "label" and loc[-1] != "[key]":
            at = len(loc) - 1
            if any(other[:at] == loc[:at] and len(other) > at and other[at] != loc[at] for other, *_ in read):
                continue
        kept.append((kind, clean, item))
    # A key misspelled and the field it leaves missing are one problem, said once (at the key).
    misspelled = {
        (clean[:-1], item.did_you_mean[0])
        for kind, clean, item in kept
        if kind == "extra_forbidden" and item.did_you_mean
    }
    return [
        item
        for kind, clean, item in kept
        if not (kind == "missing" and clean and (clean[:-1], clean[-1]) in misspelled)
    ]
