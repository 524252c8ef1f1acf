"""One phrase per action (runs/readmodels/actions.py), used by every place that offers it: the chips' moves,
the state panels, the step page's card, the fork form and the hand-over card (friction12 item 5)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

from runs.readmodels import actions, graph_drawing, states

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "workrail_site" / "templates" / "dashboard"
# The names the same actions went by before the table, as they were written: none may come back, in a
# template or a read model.
OLD_NAMES = (
    "resume it",
    "Resume…",
    "Resume this branch here",
    "Start a new branch from here",
    "Edit the context and start a branch",
    "Hand this branch to the agent",
    "Give an agent this step again",
    "The resume message",
    # the graph key's "give one the resume message" (friction12 item 5); the button that copies it is now named
    # by its action, "Copy the resume message" (friction28b 7), from the one table (actions.COPY)
    "give one the resume message",
    "sentence below",
    "Resume this branch…",  # a third name for the message's button (friction16b 12)
    "only if the agent has stopped",  # a note beside a solid button, now a closed disclosure (friction16)
    # friction22a B1, 22b A1: the step page's sections under other names, and disclosures named after a question.
    # ("Redo this step on a new branch" came back as "Branch from here"'s lead line, friction24a 7.)
    "Restart this step",
    "redo it as it was",
    "then redo it",
    "Your reply",
    "Want it back?",
    "Agent stopped?",
    # friction24a 7, 24b 13: the two ways of branching named by what you do, not by their outcome.
    "Copy a message to branch as it was",
    "Change its context, then branch",
    # friction24a 8: a rule of which branch the run page shows, which nobody needs to act.
    "whichever branch moved last",
    # friction24b 1: false after a branch started by hand, whose source reads Replaced.
    "stay as they were",
    "goes on beside the new branch",
    # friction25a 1, 25b 1: "kept" beside a warning that the branch is marked Replaced; "will read" as jargon.
    "this branch is kept",
    "will read Replaced",
    # friction26a 3, 26b 1: a second wording of the redo's effect on a branch left behind's step.
    "The new branch replaces",
    "stays in the history",
)
# The actions a person offers from a page: their phrases come from the table only (the `action` filters).
OFFERED: tuple[actions.ActionName, ...] = ("resume", "fork", "branch")


def _template_text(path: Path) -> str:
    """A template as a person could read it: without its {# comments #}, which name actions to explain."""
    return re.sub(r"\{#.*?#\}", "", path.read_text(), flags=re.S)


def _python_strings(path: Path) -> list[str]:
    """The strings a module may show to people: its literals, docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_every_action_has_one_phrase():
    assert set(actions.ACTIONS) == set(get_args(actions.ActionName))
    verbs = [action.verb for action in actions.ACTIONS.values()]
    assert len(set(verbs)) == len(verbs)
    assert set(states.YOUR_ACTIONS.values()) <= set(actions.ACTIONS)  # a row's move is one of them
    assert actions.title("resume") == "Resume the agent" and actions.title("branch") == "Redo with new inputs"
    # A new branch from an earlier step by the message is not "resume", which only carries a branch on at its
    # latest step (friction13 2); beside the form, it says what sets the two apart (friction15), by its outcome,
    # in parallel words with the form's (friction24a 7, 24b 13).
    assert actions.title("fork") == "Redo with the same inputs"
    assert actions.SECTIONS == {
        "resume": "Resume here",
        "confirm": "Your confirmation",
        "branch": "Branch from here",
    }


def test_templates_take_the_offered_actions_from_the_table_and_no_old_name_is_left():
    written = {path.name: _template_text(path) for path in TEMPLATES.glob("*.html")}
    for name, text in written.items():
        for action in OFFERED:
            phrase = actions.verb(action)
            assert phrase.lower() not in text.lower(), f"{name} writes {phrase!r} by hand: use the action filter"
        for old in OLD_NAMES:
            assert old not in text, f"{name} still says {old!r}"
    # Each place that offers an action reads it from the table.
    assert '"fork"|action' in written["node.html"]
    assert "step_actions.redo_title" in written["_fork.html"]  # actions.redo_title: "branch"'s, or new inputs
    # friction26a 7: the run card's line for a branch left behind offers no "Resume here →" (a second agent by
    # one click); the branch's own panel and step page do.
    assert "Resume here" not in written["_attention.html"] and '"resume"|section' not in written["_attention.html"]
    # The hand-over's to-dos say what to do in steps (step_actions.handover_steps, friction25a 5), not "To resume".
    assert '"resume"|action' not in written["_fork.html"]


def test_no_read_model_says_an_action_by_an_old_name():
    for path in sorted((ROOT / "runs" / "readmodels").glob("*.py")):
        for text in _python_strings(path):
            for old in OLD_NAMES:
                assert old not in text, f"{path.name} says {old!r}: {text!r}"


def test_the_graph_key_names_a_paused_branchs_move_from_the_table():
    # The "?" beside the branch graph says what a paused branch means and what to do, in the one phrase.
    assert graph_drawing.STATE_LEGEND["paused"].endswith(": " + actions.verb("resume"))


def test_every_copy_button_says_its_words_from_the_table():
    # The step page's and the panels' copy buttons read their words from actions.COPY (friction15): a step waiting
    # for the person's confirmation offers the two replies; every other copy of the message, one name (friction16).
    # A reply's button names the reply it copies, so it does not read as confirming by itself (friction17), and
    # its "Share…" names the same reply.
    assert actions.copy_label("confirmed") == "Copy “Confirmed” reply"
    assert actions.copy_label("changes") == "Copy “Not yet: change…” reply"
    assert actions.share_label("confirmed") == "Share “Confirmed”…"
    assert actions.share_label("changes") == "Share “Not yet”…"
    assert actions.share_label("redo") == "Share…"
    assert set(actions.COPY) == set(actions.SHARE) == {"redo", "resume", "start", "confirmed", "changes"}
    # friction28b 7, 9: the resume and start buttons say their action, the same wherever they are.
    assert (actions.copy_label("resume"), actions.copy_label("start")) == (
        "Copy the resume message",
        "Copy the start message",
    )
    written = {path.name: _template_text(path) for path in TEMPLATES.glob("*.html")}
    for label in actions.COPY.values():
        for name, text in written.items():
            assert label not in text, f"{name} writes the copy button {label!r} by hand: use the copy_label filter"


def test_the_message_s_weight_follows_whose_move_it_is():
    # friction16: solid only where resuming is the person's move; the outline elsewhere, in sight with its line
    # (friction22a B3: no more "Agent stopped? …" fold while the agent has it).
    assert {move: states.weight(move) for move in get_args(states.Move)} == {
        "yours": "primary",
        "nobody": "quiet",
        "agents": "quiet",
    }
