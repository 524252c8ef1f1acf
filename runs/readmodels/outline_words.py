"""A workflow's outline in words for the workflow page: when a step runs, when it asks the user to
confirm, and how a loop repeats, said from the compiled step's structure (conditions by
workflows_app/condition_words.py in the style for people, loops by the engine's own reading of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from runs.contract.preferences import RECOMMENDATION_FIELDS
from runs.readmodels import preferences
from workflows_app.condition_words import PEOPLE, describe
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
    pages show it as code, so it reads as the name it is."""

    text: str


# Words for people with the workflow's own names kept apart (templatetags renders each Name as code).
Phrase = tuple[str | Name, ...]


def plain(phrase: Phrase) -> str:
    """A phrase as plain text (a title attribute, a test)."""
    return "".join(part.text if isinstance(part, Name) else part for part in phrase)


def loop_words(step: Any) -> Phrase:
    """How a loop step repeats: "Repeats once for each item in `reviewAreas` (at most 15 rounds)"."""
    if not isinstance(step, dict) or not isinstance(step.get("loop"), dict):
        return ()
    spec = LoopSpec.of(cast("LoopStep", step))
    limit = f" (at most {spec.max_iterations} round{'s' if spec.max_iterations != 1 else ''})"
    if spec.type == "forEach":
        return ("Repeats once for each item in ", _named(spec.items), limit)
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
    return Name(value) if isinstance(value, str) and value else "its list"
