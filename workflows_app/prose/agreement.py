"""HEURISTICS (part of workflows_app/prose): words against structure. What a step's prompt says, in words,
about the fields of its output contract, the values of a context variable and the length of its lines.

Workflow files are written by people (ours in workflows_app/bundled, WorkRail's, a team's), and their
prompts say things the structure says too: "each with a `rationale`", "`branchName` if the work is on a
branch", "set context `complexity` to: - `simple` ... - `standard` ...", "keep each line under 200
characters". Where words and structure disagree, an agent reads a contradiction. These readings check
workflows (tests/workflows_app/test_prose.py walks every bundled workflow and WorkRail's library); they
never decide how a run goes. Each reading is a guess, tuned on those libraries: it answers only where the
words are plain, and says nothing otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

Demand = Literal["required", "optional"]

_CODE = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")
# A JSON sample the prompt gives as the schema to follow ("using EXACTLY this schema: {"verdict": ...}")
# names each of its keys as a field to send. A sample shown as an example ("Provide an artifact like:")
# does not: examples show optional fields freely.
_SCHEMA_SAMPLE = re.compile(r"\bschema\b[^{}\n]{0,80}\n?\s*(?:```json\s*)?\{", re.IGNORECASE)
_SAMPLE_KEY = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:')
# Words beside a field's name that make it conditional: "`branchName` if the work is on a branch",
# "`line` where there is one", "`correctedAssumptions`, if any", "optionally a `note`".
_OPTIONAL_AFTER = re.compile(
    r"^[`*]*\s*(?:,\s*)?(?:\([^()]*\)\s*)?(?:,\s*)?"
    r"(?:if\b|when\b|where there\b|where one\b|where it\b|unless\b|optional|\(optional|or leave it out"
    r"|may be left out)",
    re.IGNORECASE,
)
_OPTIONAL_BEFORE = re.compile(
    r"(?:\boptional(?:ly)?|\bif any|\bmay (?:add|include|send|give))\W*(?:an?\s+|the\s+)?[`*]*$", re.IGNORECASE
)
# Where the words about one field end: the next field named in code, a clause or a line.
_CLAUSE_END = re.compile(r";|\n|\.\s|`[A-Za-z_][A-Za-z0-9_]*`")
_LIMIT = re.compile(
    r"\b(?:under|below|at most|no more than|fewer than|less than|within|up to|max(?:imum)?(?: of)?)\s+(\d+)\s+"
    r"(?:characters|chars)\b",
    re.IGNORECASE,
)
_SET_TO = re.compile(r"\bcontext\s+`([A-Za-z_][A-Za-z0-9_]*)`\s+to\s*:\s*\n", re.IGNORECASE)
_BULLET_VALUE = re.compile(r"^\s*[-*]\s+`([^`\n]+)`\s*(?::|—|--|-|\()")


@dataclass(frozen=True)
class FieldWords:
    """What a prompt's words make of one contract field it names."""

    name: str
    demand: Demand
    quote: str  # the words read, for a reader to check the guess


def field_demands(prompt: str, names: Iterable[str]) -> dict[str, FieldWords]:
    """For each of `names` the prompt writes as code (`name`): whether its words ask for it plainly
    ("required") or make it conditional ("optional": "if any", "where there is one", "optionally").
    A name named several times is optional if any mention makes it so. A key of a JSON sample in the
    prompt ("name": ...) with no words of its own reads as required. Names written neither way are left
    out: a bare word ("title", "location") is too often just a word."""
    wanted = set(names)
    found: dict[str, FieldWords] = {}
    for match in _CODE.finditer(prompt):
        name = match.group(1)
        if name not in wanted:
            continue
        after = prompt[match.end() :]
        end = _CLAUSE_END.search(after)
        clause = after[: end.start()] if end else after
        before = prompt[max(0, match.start() - 40) : match.start()]
        optional = bool(_OPTIONAL_AFTER.match(clause)) or bool(_OPTIONAL_BEFORE.search(before))
        words = FieldWords(name, "optional" if optional else "required", (before[-20:] + match.group(0) + clause)[:120])
        if name not in found or optional:
            found[name] = words
    for sample in _schema_samples(prompt):
        for match in _SAMPLE_KEY.finditer(sample):
            name = match.group(1)
            if name in wanted and name not in found:
                found[name] = FieldWords(name, "required", f"the schema it shows has {match.group(0)}")
    return found


def _schema_samples(prompt: str) -> Iterator[str]:
    """The JSON objects a prompt introduces as a schema, each from its `{` to the matching `}`."""
    for match in _SCHEMA_SAMPLE.finditer(prompt):
        start = match.end() - 1
        depth = 0
        for index in range(start, len(prompt)):
            depth += {"{": 1, "}": -1}.get(prompt[index], 0)
            if depth == 0:
                yield prompt[start : index + 1]
                break


def stated_character_limits(prompt: str, fields: Iterable[str] | None = None) -> tuple[int, ...]:
    """The lengths a prompt states in characters: "keep each line under 200 characters" gives 200. With
    `fields` (a contract's), only those said of the contract: a line that names anything else
    ("`commitSubject`: max 72 chars") is about that other thing."""
    known = None if fields is None else set(fields)
    found = []
    for line in prompt.splitlines():
        names = {*_CODE.findall(line), *_SAMPLE_KEY.findall(line)}
        if known is not None and names - known:
            continue
        found += [int(number) for number in _LIMIT.findall(line)]
    return tuple(found)


def listed_values(prompt: str) -> dict[str, tuple[str, ...]]:
    """The values a prompt lists for a context variable, one bullet each after "set context `x` to:":

        Set context `complexity` to:
        - `simple`: small and low risk;
        - `standard`: ordinary work;

    gives {"complexity": ("simple", "standard")}. (Values written on one line beside the name are read
    by asks.py's `offered`.)"""
    lists: dict[str, tuple[str, ...]] = {}
    for match in _SET_TO.finditer(prompt):
        values = []
        for line in prompt[match.end() :].splitlines():
            value = _BULLET_VALUE.match(line)
            if value is None:
                break
            values.append(value.group(1))
        if values:
            lists[match.group(1)] = tuple(values)
    return lists


# --- the contract's side: plain JSON Schema, no guessing ---------------------------------------------------


def contract_fields(schema: Any) -> dict[str, set[Demand]]:
    """Every property name of an artifact schema at any depth (items of lists included), with whether the
    schema requires it; a name used at several places with different answers has both. `kind` and
    constants are left out: the server writes them."""
    fields: dict[str, set[Demand]] = {}
    for name, required in _properties(schema, 0):
        fields.setdefault(name, set()).add("required" if required else "optional")
    return fields


def _properties(schema: Any, depth: int) -> Iterator[tuple[str, bool]]:
    if not isinstance(schema, dict) or depth > 8:
        return
    required = set(schema.get("required") or [])
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            if isinstance(sub, dict) and "const" not in sub:
                yield name, name in required
            yield from _properties(sub, depth + 1)
    yield from _properties(schema.get("items"), depth + 1)
    for combinator in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(combinator) or []:
            yield from _properties(branch, depth + 1)


def string_limits(schema: Any, depth: int = 0) -> set[int]:
    """Every maxLength of a string in the schema."""
    if not isinstance(schema, dict) or depth > 8:
        return set()
    found = {schema["maxLength"]} if isinstance(schema.get("maxLength"), int) else set()
    for sub in (schema.get("properties") or {}).values():
        found |= string_limits(sub, depth + 1)
    found |= string_limits(schema.get("items"), depth + 1)
    return found


# --- words against structure, over a compiled workflow -----------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """A place where a step's words and its workflow's structure say different things."""

    step_id: str
    message: str


def disagreements(compiled: Any) -> list[Disagreement]:
    """Where the prompts of a compiled workflow contradict its structure:
    - a contract field the words ask for plainly that the contract lets go, or one the words make
      conditional that the contract requires;
    - a length in characters the words state that is not the one length the contract allows;
    - values the words list for a context variable that its conditions do not all compare it with,
      when they compare it with some (the agent is then shown an incomplete set)."""
    steps = list(_walk(compiled.get("steps") or []))
    compared = _compared_values(steps)
    found: list[Disagreement] = []
    for step in steps:
        prompt = step.get("prompt")
        if not isinstance(prompt, str):
            continue
        step_id = str(step.get("id", ""))
        contract = step.get("outputContract")
        schema = contract.get("schema") if isinstance(contract, dict) else None
        if isinstance(schema, dict):
            found += _field_disagreements(step_id, prompt, schema)
            found += _limit_disagreements(step_id, prompt, schema)
        for name, values in listed_values(prompt).items():
            known = compared.get(name)
            missing = [value for value in values if known and value not in known]
            if missing:
                found.append(
                    Disagreement(
                        step_id,
                        f"the prompt lists {', '.join(values)} for context `{name}`, but the conditions compare it "
                        f"only with {', '.join(sorted(map(str, known or ())))}: {', '.join(missing)} appears in no "
                        "condition, so the values an agent is shown are incomplete",
                    )
                )
    return found


def _field_disagreements(step_id: str, prompt: str, schema: dict[str, Any]) -> list[Disagreement]:
    fields = contract_fields(schema)
    found = []
    for name, words in field_demands(prompt, fields).items():
        demands = fields[name]
        if len(demands) != 1:
            continue  # required in one place, optional in another: the words cannot say which they mean
        (demand,) = demands
        if demand != words.demand:
            found.append(
                Disagreement(
                    step_id,
                    f"the prompt makes `{name}` {words.demand} (“{words.quote.strip()}”), the contract "
                    f"{'requires it' if demand == 'required' else 'lets it out'}",
                )
            )
    return found


def _limit_disagreements(step_id: str, prompt: str, schema: dict[str, Any]) -> list[Disagreement]:
    limits = string_limits(schema)
    return [
        Disagreement(
            step_id,
            f"the prompt states {stated} characters, the contract allows {', '.join(map(str, sorted(limits)))}",
        )
        for stated in stated_character_limits(prompt, contract_fields(schema))
        if limits and limits != {stated}
    ]


def _walk(steps: list[Any]) -> Iterator[dict[str, Any]]:
    for step in steps:
        if isinstance(step, dict):
            yield step
            yield from _walk(step.get("body") or [])


def _compared_values(steps: list[dict[str, Any]]) -> dict[str, set[Any]]:
    """The values each context variable is compared with anywhere (runConditions, loop conditions,
    prompt fragments, confirmation rules): the structure, read as it is."""
    compared: dict[str, set[Any]] = {}
    for step in steps:
        conditions = [step.get("runCondition"), (step.get("loop") or {}).get("condition")]
        fragments = [fragment for fragment in step.get("promptFragments") or [] if isinstance(fragment, dict)]
        conditions += [fragment.get("when") for fragment in fragments]
        rule = step.get("requireConfirmation")
        conditions.append(rule.get("condition") if isinstance(rule, dict) and "kind" in rule else rule)
        for condition in conditions:
            _collect(condition, compared, 0)
    return compared


def _collect(condition: Any, compared: dict[str, set[Any]], depth: int) -> None:
    if not isinstance(condition, dict) or depth > 16:
        return
    for combinator in ("and", "or"):
        for item in condition.get(combinator) or []:
            _collect(item, compared, depth + 1)
    _collect(condition.get("not"), compared, depth + 1)
    name = condition.get("var")
    if not isinstance(name, str):
        return
    values = [condition[op] for op in ("equals", "not_equals") if op in condition]
    allowed = condition.get("in")
    if isinstance(allowed, list):
        values += allowed
    compared.setdefault(name, set()).update(v for v in values if isinstance(v, str | int | float | bool))
