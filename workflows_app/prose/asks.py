"""HEURISTICS (part of workflows_app/prose): what one compiled step asks the agent to set, read from its
declared structure first and from its prompt's words after.

Declared structure: `promptBlocks.outputRequired` keys, kept by the compiler as the step's `declaredAsks`
({"context": [names], "notes": true}). Words: what WorkRail's prompts write instead ("context.riskLevel",
"Capture: `a`, `b`", "Set these keys in the next `continue_workflow` call's `context` object:", "set
`reproduced` to true or false", "**hasUI** (true / false)", "include 'coding-task-workflow-agentic'",
"write your notes"). `read_step` turns both into one StepAsks; workflows_app/engine/asks.py calls it once
per compiled workflow (per hash) and every reader takes the fields from there, never the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Source = Literal["declared", "prose"]

# How prompts ask for a variable by name: `context.riskLevel` (promptBlocks' outputRequired is rendered so),
# "set context `slices`", "context variable `x`".
_ASKED = re.compile(
    r"\bcontext\.([A-Za-z_][A-Za-z0-9_]*)|\bcontext\s+(?:variables?\s+)?`([A-Za-z_][A-Za-z0-9_]*)`", re.IGNORECASE
)
_QUOTED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")
# WorkRail's own workflows ask for context values as "Capture: `a`, `b`", as a bulleted list after
# "Capture:", or as "Capture pathComplexity in context." ("Capture the branch name as `x`" names x).
# WorkRail's newer prompts write "Set these keys in the next `continue_workflow` call's `context` object:"
# followed by a list (or the names inline): read the same way.
_CAPTURE = re.compile(
    r"\bcapture\b(?![-\w])\s*(?:\*\*)?:?(?:\*\*)?"
    r"|\bset\s+(?:this|these|the\s+following)\s+(?:context\s+)?keys?\b[^:\n]*\bcontext\b[^:\n]*:"
    r"|\bset\s*:(?=[ \t]*\n)",
    re.IGNORECASE,
)
# "set severity.", "set `reproduced` to true", "update `ambiguities` with ...": asked for when the
# workflow reads that name somewhere.
_SET = re.compile(
    r"\b(?:set|update)\s+(?:`([A-Za-z_][A-Za-z0-9_]*)`|([A-Za-z_][A-Za-z0-9_]*)(?=\s*(?:\bto\b|=|[.,;)]|\(|$)))",
    re.IGNORECASE | re.MULTILINE,
)
_VARIABLE = re.compile(r"[a-z][A-Za-z0-9_]*")
_ASIDE = re.compile(r"\([^()]*\)")
_BULLET = re.compile(r"\s*[-*]\s+")
_NAMED_LIST = re.compile(r"\bvariables?\s*:")
_CHOICE = r"[A-Za-z0-9][\w.-]*"
_CHOICES = rf"({_CHOICE}(?:\s*(?:/|,\s*or\b|,|\bor\b)\s*{_CHOICE})+)(?=\s*(?:\)|$|\n|\.|;|--|—))"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Workflow ids a prompt names ("include 'coding-task-workflow-agentic'"): only in a prompt that talks about
# workflow ids, and never a value the prompt offers as a choice ("bug-fix").
_TALKS_ABOUT_IDS = re.compile(r"\bworkflow\s+ids?\b", re.IGNORECASE)
_QUOTED_ID = re.compile(r"""['"`]([a-z][a-z0-9]*(?:[._-][a-z0-9]+)+)['"`]""")
_NAME = re.compile(r"\*\*([A-Za-z_][A-Za-z0-9_]*)\*\*|`([A-Za-z_][A-Za-z0-9_]*)`")
_NOTES_NAMED = "notesMarkdown"
_NOTES_SAID = re.compile(r"\bnotes\b", re.IGNORECASE)
# The verbs of a prompt that asks the agent to hand work out ("spawn TWO WorkRail Executors running
# `routine-x`", "Before delegating, ...", "delegate a bounded translation"), not the nouns that only talk
# about it ("minimal delegation", "Subagent agreement alone is not proof"), and not when negated close
# before ("DO NOT DELEGATE", "do not delegate synthesis").
_DELEGATE_VERB = re.compile(r"\b(?:spawn|spawning|delegate|delegating)\b", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(r"\b(?:not|never|no|without|don't|do\s+not)\W+(?:\w+\W+)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Ask:
    """A context variable a step asks the agent to set, and where that ask was read."""

    name: str
    source: Source


@dataclass(frozen=True)
class NotesAsk:
    """The step asks for notes: `plainly` when it names output.notesMarkdown (or declares items that go
    there), else it only says "notes"."""

    plainly: bool
    source: Source


@dataclass(frozen=True)
class StepAsks:
    """What one compiled step asks the agent to set and the values it may take (see the module's doc)."""

    asked: tuple[Ask, ...] = ()  # context variables asked for by name, in the order the step gives them
    set_loosely: tuple[str, ...] = ()  # names the prompt says to set or update: asked when the workflow reads them
    quoted: tuple[str, ...] = ()  # the names the title and prompt write as `code`
    offered: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # values written beside an asked name
    workflow_ids: tuple[str, ...] = ()  # workflow ids the prompt names
    notes: NotesAsk | None = None
    delegates: bool = False  # the compiled prompt asks the agent to delegate part of the step
    delegating_fragments: frozenset[int] = frozenset()  # the prompt fragments (by index) that ask it
    title_words: frozenset[str] = frozenset()  # identifiers of the title
    prompt_words: frozenset[str] = frozenset()  # identifiers of the compiled prompt
    fragment_words: frozenset[str] = frozenset()  # identifiers of its prompt fragments, shown or not

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(ask.name for ask in self.asked)

    @property
    def from_prose(self) -> tuple[str, ...]:
        """The names read from words only: what validate_workflow advises declaring."""
        return tuple(ask.name for ask in self.asked if ask.source == "prose")

    def delegates_with(self, fragments: Iterable[int]) -> bool:
        """Whether the prompt shown asks to delegate, given the fragments that hold (the engine's
        pending_fragments): a fragment's words count only where it is shown."""
        return self.delegates or not self.delegating_fragments.isdisjoint(fragments)

    @property
    def mentioned(self) -> frozenset[str]:
        """The identifiers of the title and the compiled prompt: what the step mentions."""
        return self.title_words | self.prompt_words

    @property
    def written(self) -> frozenset[str]:
        """The identifiers of everything the prompt shown may hold (its fragments included)."""
        return self.prompt_words | self.fragment_words


NONE = StepAsks()


def read_step(step: Mapping[str, Any]) -> StepAsks:
    """The asks of one compiled step: its `declaredAsks` first, then what its title and prompt say."""
    found = step.get("declaredAsks")
    declared: Mapping[str, Any] = found if isinstance(found, dict) else {}
    title, prompt = str(step.get("title", "")), str(step.get("prompt", ""))
    # Indexed as the step's promptFragments are (the engine's pending_fragments counts the same way).
    fragments = [str(f.get("text", "")) if isinstance(f, dict) else "" for f in step.get("promptFragments") or []]
    text = f"{title} {prompt}"
    prose_names = [a or b for a, b in _ASKED.findall(text)] + captured(text)
    declared_names = [name for name in declared.get("context") or [] if isinstance(name, str)]
    names = list(dict.fromkeys([*prose_names, *declared_names]))
    quoted = tuple(dict.fromkeys(_QUOTED.findall(text)))
    named = {*names, *quoted}
    return StepAsks(
        asked=tuple(Ask(name, "declared" if name in declared_names else "prose") for name in names),
        set_loosely=tuple(dict.fromkeys(a or b for a, b in _SET.findall(text))),
        quoted=quoted,
        offered={name: found for name in named if (found := offered(text, name))},
        workflow_ids=_workflow_ids(prompt),
        notes=_notes(prompt, fragments, declared_notes=declared.get("notes") is True),
        delegates=asks_to_delegate(prompt),
        delegating_fragments=frozenset(index for index, text in enumerate(fragments) if asks_to_delegate(text)),
        title_words=words(title),
        prompt_words=words(prompt),
        fragment_words=frozenset().union(*map(words, fragments)),
    )


def words(text: str) -> frozenset[str]:
    """The identifiers in a text: what `mentioned` means to the answers and to expectations."""
    return frozenset(_WORD.findall(text))


def _notes(prompt: str, fragments: list[str], *, declared_notes: bool) -> NotesAsk | None:
    if declared_notes:
        return NotesAsk(plainly=True, source="declared")
    parts = [prompt, *fragments]
    if any(_NOTES_NAMED in part for part in parts):
        return NotesAsk(plainly=True, source="prose")
    if any(_NOTES_SAID.search(part) for part in parts):
        return NotesAsk(plainly=False, source="prose")
    return None


def _workflow_ids(prompt: str) -> tuple[str, ...]:
    if not _TALKS_ABOUT_IDS.search(prompt):
        return ()
    names = {a or b for a, b in _NAME.findall(prompt)}
    choices = {choice for name in names for choice in offered(prompt, name)}
    return tuple(dict.fromkeys(token for token in _QUOTED_ID.findall(prompt) if token not in choices))


def asks_to_delegate(prompt: str) -> bool:
    """Whether a prompt asks the agent, in words, to delegate part of the step to a subagent (a run of a
    routine or workflow it starts itself): a delegating verb not negated just before it."""
    return any(
        not _NEGATED_BEFORE.search(prompt[max(0, match.start() - 30) : match.start()])
        for match in _DELEGATE_VERB.finditer(prompt)
    )


def captured(text: str) -> list[str]:
    """The variables a prompt tells the agent to capture (see _CAPTURE), in the order written."""
    names: list[str] = []
    for match in _CAPTURE.finditer(text):
        rest = text[match.end() :]
        first, _, after = rest.partition("\n")
        if not first.strip():  # "Capture:" and then a list, one variable (or a few) per bullet
            for line in after.splitlines():
                if not _BULLET.match(line):
                    break
                head = re.split(r"\s+(?:—|--|-)\s+|\(|:", line, maxsplit=1)[0]
                names += _QUOTED.findall(head) or _leading_names(_BULLET.sub("", head, count=1))
            continue
        clause = re.split(r"\.(?:\s|$)|\n", first, maxsplit=1)[0]
        clause = _NAMED_LIST.split(clause, maxsplit=1)[-1]  # "Capture these context variables: a, b"
        names += _QUOTED.findall(clause) or _leading_names(clause)
    return names


def offered(text: str, name: str) -> tuple[str, ...]:
    """The values a prompt offers for `name` where it writes them beside it: "`ticketComplexity`:
    Simple / Standard / Complex", "**hasUI** (true / false)", "pathComplexity (Simple, Standard, or
    Epic)", "set `reproduced` to true or false". Empty when it does not."""
    pattern = re.compile(
        r"[`*]*\b" + re.escape(name) + r"\b[`*]*\s*(?::|\(|\bto\b)\s*(?:one of:?\s*)?" + _CHOICES, re.I
    )
    match = pattern.search(text)
    if match is None:
        return ()
    choices = re.split(r"\s*(?:/|,\s*or\b|,|\bor\b)\s*", match.group(1))
    return tuple(choice.rstrip(".") for choice in choices if choice.rstrip("."))  # "low / high." ends a sentence


def _leading_names(clause: str) -> list[str]:
    """The names a list written in prose starts with: "scope, scopeDescription and auditComplexity in
    context" gives all three; the first word that is not a variable's name ends the list."""
    names = []
    for part in re.split(r",|\band\b|\bor\b", _ASIDE.sub("", clause)):
        tokens = part.strip(" .;:*`").split()
        if not tokens:
            continue
        name = tokens[0].strip("`*.:;")
        if not _VARIABLE.fullmatch(name) or (len(tokens) > 1 and name.islower()):
            break  # prose: "capture the output"
        names.append(name)
        if len(tokens) > 1:
            break  # "verdictRationale naming the dimension ...": the sentence goes on in words
    return names
