"""A workflow's outline in words for the workflow page: when a step runs, when it asks the user to
confirm, and how a loop repeats, said from the compiled step's structure (conditions by
workflows_app/condition_words.py in the style for people, loops by the engine's own reading of them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from runs.contract.dashboard import plural
from runs.contract.preferences import RECOMMENDATION_FIELDS
from runs.readmodels import preferences
from workflows_app.condition_words import PEOPLE, describe, spoken_name
from workflows_app.engine.loops import LoopSpec
from workflows_app.engine.templating import placeholders, without_context

if TYPE_CHECKING:
    from workflows_app.engine.model import LoopStep


def condition_words(condition: Any) -> str:
    """`{"var": "riskLevel", "equals": "high"}` as "riskLevel is 'high'"."""
    return describe(condition, PEOPLE)


def confirmation_words(rule: Any) -> str:
    """When a step asks the user to confirm: "asks for confirmation", or "... when <condition>"."""
    if isinstance(rule, dict):
        condition = rule.get("condition") if "kind" in rule else rule
        if isinstance(condition, dict) and condition:
            return f"asks for confirmation when {condition_words(condition)}"
    return "asks for confirmation" if rule else ""


@dataclass(frozen=True)
class Name:
    """A name from the workflow file (a context variable, an artifact kind) inside words for people:
    pages show it as code, so it reads as the name it is. A context variable is said as words (`said`, "review
    areas"; friction64 A1: a newcomer reads no camelCase), as conditions say it, the name as written in its
    tooltip for whoever writes workflows."""

    text: str
    said: str = ""  # the variable's name as words; "" for a name shown as written


# Words for people with the workflow's own names kept apart (templatetags renders each Name as code).
Phrase = tuple[str | Name, ...]


def plain(phrase: Phrase) -> str:
    """A phrase as plain text (a title attribute, a test)."""
    return "".join((part.said or part.text) if isinstance(part, Name) else part for part in phrase)


def loop_words(step: Any) -> Phrase:
    """How a loop step repeats, its rounds called as the run pages call them (loop_unit): "Repeats once for each
    area in `reviewAreas` (at most 15 areas)", "Repeats 3 times (at most 3 rounds)"."""
    if not isinstance(step, dict) or not isinstance(step.get("loop"), dict):
        return ()
    spec = LoopSpec.of(cast("LoopStep", step))
    unit = loop_unit(step)
    rounds = unit or "round"
    limit = f" (at most {spec.max_iterations} {rounds if spec.max_iterations == 1 else plural(rounds)})"
    if spec.type == "forEach":
        return (f"Repeats once for each {unit or 'item'} in ", _named(spec.items), limit)
    if spec.type == "for":
        if isinstance(spec.count, int) and not isinstance(spec.count, bool):
            return (f"Repeats {spec.count} time{'s' if spec.count != 1 else ''}", limit)
        return ("Repeats as many times as ", _named(spec.count), " says", limit)
    if spec.decision_key is not None:
        return (
            "Repeats while the agent's ",
            Name("wr.loop_control"),
            " decision for ",
            Name(spec.decision_key),
            " says continue",
            limit,
        )
    if spec.condition:
        how = "Repeats until " if spec.type == "until" else "Repeats while "
        return (how + condition_words(spec.condition), limit)
    return ("Repeats as the agent decides after each round", limit)


# A `forEach` loop's declared item variable read as one word: "slice" from "currentSlice", "area" from "area".
# Only a name that is one word, after an optional "current" or "each" (the engine's own default, "currentItem",
# names nothing); anything else ("serviceName", "slice_2") keeps "round": never a guess at what the name means.
_PREFIXES = ("current", "each")
_GENERIC = frozenset({"item", "items", "element", "entry", "value", "thing", "round", "iteration", "index"})


def loop_unit(step: Any) -> str:
    """What one round of the loop `step` is in its workflow's words: the item of a `forEach` loop that declares
    its `itemVar` ("currentSlice": "slice 2 of 3"); "" (say "round") for any other loop or name. The one word a
    run's places (StepPlace.unit) and the workflow page's outline call a round by (friction26b 4: the outline
    said "rounds" where the run said "area 1 of 2")."""
    loop = step.get("loop") if isinstance(step, Mapping) else None
    if not isinstance(loop, Mapping) or loop.get("type") != "forEach":
        return ""
    name = str(loop.get("itemVar") or "")
    for prefix in _PREFIXES:
        if name.startswith(prefix) and name[len(prefix) : len(prefix) + 1].isupper():
            name = name[len(prefix) :]
    word = name.lower()
    one_word = len(name) >= 3 and name.isascii() and name.isalpha() and name[1:].islower()
    return word if one_word and word not in _GENERIC else ""


def title_words(title: str) -> str:
    """A step title as the workflow file writes it, for a page with no run behind it: each
    `{{placeholder}}` as its name in brackets (`Review [area]`), never raw braces."""
    return without_context(title)


def fills_in(title: str) -> bool:
    """Whether a title names values the run fills in (the page then says so)."""
    return bool(placeholders(title))


_PREFERENCE_WORDS = {"autonomy": "autonomy", "riskPolicy": "risk policy"}


def preference_words(preferences: Any) -> str:
    """A node's or run's preferences in words: "autonomy guided, risk policy balanced"."""
    if not isinstance(preferences, dict):
        return ""
    return ", ".join(f"{_PREFERENCE_WORDS.get(key, key)} {value}" for key, value in preferences.items())


def recommendation_words(recommended: Any) -> str:
    """A workflow's recommendedPreferences in the session head's words (preferences.stance_words): "Guided,
    balanced risk", not the stored "autonomy guided, risk policy balanced"."""
    return preferences.stance_words(_recommended(recommended))


def recommendation_does(recommended: Any) -> str:
    """What the agent does under a workflow's recommendation, one sentence from the STANCES table ("The agent
    asks you at every confirmation, and weighs risk against speed."); "" when none is known."""
    return preferences.mode_does(_recommended(recommended))


def _recommended(recommended: Any) -> dict[str, str]:
    if not isinstance(recommended, dict):
        return {}
    return {key: str(recommended[field]) for key, field in RECOMMENDATION_FIELDS if field in recommended}


# What each feature a workflow turns on (workflows_app/builtins/features.py) adds, in a person's words: the one
# table the workflow page reads. An id not in it is shown as written, marked as not known here.
FEATURE_WORDS: dict[str, str] = {
    "wr.features.capabilities": "checks it really has an ability before relying on it",
    "wr.features.subagent_guidance": "delegates self-contained work to subagents and reviews what comes back",
    "wr.features.memory_context": "uses its memory of earlier work",
}


@dataclass(frozen=True)
class FeatureWords:
    id: str
    words: str  # "" for an id not in FEATURE_WORDS


def feature_words(features: Any) -> list[FeatureWords]:
    """Each feature of a workflow in a person's words (FEATURE_WORDS), its id kept for the tooltip."""
    if not isinstance(features, list):
        return []
    return [FeatureWords(str(f), FEATURE_WORDS.get(str(f), "")) for f in features]


def _named(value: Any) -> str | Name:
    """A context variable a loop reads (its items, its count), said as words."""
    return Name(value, spoken_name(value)) if isinstance(value, str) and value else "its list"
