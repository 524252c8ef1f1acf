"""The dashboard's one vocabulary of states (runs/readmodels/states.py)."""

from __future__ import annotations

from typing import get_args

from runs.contract.dashboard import PlaceName, StateName
from runs.readmodels import states


def test_every_state_has_one_label_and_the_most_urgent_come_first():
    assert set(states.LABELS) == set(get_args(StateName))
    assert [states.LABELS[s] for s in states.ORDER[:5]] == ["Confirm", "Refused", "No agent yet", "Stalled", "Working"]
    assert len(set(states.LABELS.values())) == len(states.LABELS)


def test_stored_statuses_places_and_branches_map_to_the_vocabulary():
    assert states.of_status("in_progress") == "running"
    assert states.of_status("in_progress", waiting=True) == "needs_you"
    assert states.of_status("stalled") == "stalled"
    # A run no agent has touched since it came here is paused, never stalled by the clock (paused.py).
    assert states.of_status("stalled", paused=True) == states.of_status("in_progress", paused=True) == "paused"
    assert states.of_status("complete", paused=True) == "done"
    assert states.of_status("complete") == "done"
    assert {states.of_place(p) for p in get_args(PlaceName)} <= set(get_args(StateName))
    assert states.of_place("waiting_for_user") == "needs_you"
    # A branch left behind is never "open", even when its run is done.
    assert states.of_branch("open", left_behind=True, run_state="done") == "left_behind"
    assert states.of_branch("blocked", left_behind=True, run_state="running") == "left_behind"
    assert states.of_branch("open", left_behind=False, run_state="stalled") == "stalled"
    assert states.of_branch("complete", left_behind=False, run_state="running") == "done"


def test_the_states_always_yours_are_the_your_move_chips_reasons():
    # Drawn inside the sessions list's "Your move" chip: exactly the states whose usual move is the person's,
    # most urgent first; Blocked is the agent's until it stops, so it is not among them.
    assert states.YOURS_ALWAYS == ("needs_you", "paused", "stalled", "superseded")
    assert all(states.move(state) == "yours" for state in states.YOURS_ALWAYS)
    assert states.move("blocked") == "agents" and states.move("blocked", stopped=True) == "yours"


def test_every_state_means_one_line_said_once_under_the_filter_that_counts_it():
    """friction18b 9, friction18a 11: nine state words and no glossary. One table (MEANINGS) gives each pill's
    tooltip and the sessions list's fold, grouped by the filter that counts each (Paused under "Your move")."""
    assert {m.state for m in states.MEANINGS} == set(get_args(StateName))
    words = [m.word for m in states.MEANINGS]
    assert len(words) == len(set(words)) and all(m.means.endswith(".") for m in states.MEANINGS)
    # A refused step has lines by whose move: the agent's reads "Retrying".
    assert states.meaning("blocked", "agents") != states.meaning("blocked", "yours")
    assert states.pill("blocked", "agents").means.startswith("The agent's answer was refused. It was told")
    assert states.pill("done", "nobody").means == "Finished."
    glossary = {filter_words: [m.word for m in listed] for filter_words, listed in states.glossary()}
    assert glossary == {
        # friction23a A1, 23b 2: Replaced asks the person to stop its agent, so it is counted with their moves.
        "Your move": [
            "Confirm",
            "Agent stopped",
            "Needs your input",
            "No agent yet",
            "Stalled",
            "Replaced",
        ],
        "Agent's move": ["Working", "Retrying"],
        "Nothing to do": ["Left behind", "Done", "Canceled", "Notes only"],
    }
    # Each under the filter whose colour its pill has.
    assert all(states.pill(m.state, m.move).move == m.move for m in states.MEANINGS)


def test_a_blocked_step_of_yours_says_its_cause_in_its_pill_and_its_line():
    """friction26a 4, 26b 10: one "Blocked" meant an agent that stopped (paste a resume message) or a step that
    waits for what only the person gives (give it); the pill said neither. One state, two causes, from typed
    data (held_by), each with its own line; Stalled and "Retrying" say theirs in words too."""
    stopped = states.pill("blocked", "yours")
    held = states.pill("blocked", "yours", held_by_you=True)
    assert stopped.words == "Your move · Agent stopped" and stopped.tone == "yours"
    assert held.words == "Your move · Needs your input" and held.tone == "yours"
    assert held.means == "The step waits for something only you can give."
    assert "has probably stopped" in stopped.means
    # The agent's move reads "Retrying", with no cause: it resends by itself.
    assert states.pill("blocked", "agents", held_by_you=False).words == "Agent's move · Retrying"
    assert "went quiet mid-step" in states.meaning("stalled", "yours")
    # Short enough for a phone card's pill beside its title.
    assert max(len(p.words) for p in (stopped, held)) <= 40


def test_the_lines_of_states_that_turn_on_time_say_the_threshold(settings):
    """friction20b 6: Blocked's line said the agent "stopped trying" while its rows said "has not resent it for
    45 min"; the lines of the states the threshold turns say its minutes, as configured."""
    settings.WORKRAIL_STALL_MINUTES = 12
    assert states.meaning("blocked", "yours").startswith(
        "The agent's answer was refused and it has not resent it for 12 min or more: it has probably stopped"
    )
    assert "If it has not after 12 min, it becomes your move." in states.meaning("blocked", "agents")
    assert "nothing was recorded for 12 min or more" in states.meaning("stalled", "yours")
    assert "in the last 12 min" in states.meaning("superseded", "yours")
    # friction22a B9: what is left to the person, said where its line is read; friction23a A1: so it is theirs,
    # whatever the source said (its agent may still record there).
    assert states.meaning("superseded", "yours").endswith("Tell it in its chat to stop.")
    assert states.pill("superseded", "agents").words == "Your move · Replaced"
    assert states.pill("superseded", "nobody").tone == "yours"
    # friction63a 4, 63b 5: over a line about another branch, the pill names the replaced ones.
    assert states.pill("superseded", "yours", branches=(1,)).words == "Your move · Branch 1 replaced"
    assert states.pill("superseded", "yours", branches=(1, 3)).words == "Your move · Branches 1 and 3 replaced"
    assert states.pill("running", "agents", branches=(1,)).words == "Agent's move · Working"
    assert not any("{" in m.means for m in states.MEANINGS)


def test_every_move_of_yours_is_one_calm_colour_as_its_filter_chip():
    """friction19a 6, friction19b 11: Confirm, Paused and Stalled shared Blocked's alarm red. One table (tone)
    gives every pill, panel, dot and step banner its colour family: amber ("yours") for the routine moves, blue for
    the agent's, grey for nobody's. friction65b 2: "Agent stopped" was red beside Stalled's amber, asking the same,
    and counted under the amber "Your move" chip: every move of yours is the amber now."""
    tones = {state: states.tone(state, states.move(state)) for state in states.ORDER}
    assert {state for state, tone in tones.items() if tone == "yours"} == {
        "needs_you",
        "paused",
        "stalled",
        "superseded",
    }
    assert states.tone("blocked", states.move("blocked", stopped=True)) == tones["stalled"] == "yours"
    assert tones["blocked"] == tones["running"] == "agents"  # "Retrying": the agent's blue, not red
    assert {tones[s] for s in ("done", "canceled", "left_behind", "notes")} == {"nobody"}
    # A pill carries its tone, its filter's: "Your move · Confirm", "· Stalled" and "· Agent stopped" are one colour.
    assert states.pill("needs_you", "yours").tone == "yours"
    assert states.pill("blocked", "yours").tone == states.pill("blocked", "yours", held_by_you=True).tone == "yours"
    assert states.pill("done", "yours").tone == "nobody"  # a settled state is nobody's, whatever its source said


def test_a_one_state_filter_is_named_by_the_words_its_rows_pills_show():
    """friction63a 2, 63b 4: the chip of ?status=blocked said "Refused", which no pill says; its rows read
    "Retrying", "Agent stopped" or "Needs your input". friction64 (D 2): one chip mixed the agent's move with yours;
    now a chip per move, each worded as its rows' pills, whose move first. Every other state's chip is its pill's."""
    assert states.filter_words("blocked", "agents") == states.pill("blocked", "agents").words
    stopped, held = states.pill("blocked", "yours"), states.pill("blocked", "yours", held_by_you=True)
    chip = states.filter_words("blocked", "yours")
    assert chip == "Your move · Agent stopped or Needs your input" and "Refused" not in chip
    assert stopped.words.split(" · ")[-1] in chip and held.words.split(" · ")[-1] in chip
    assert states.split_filters("blocked") == {"retrying": "agents", "blocked-yours": "yours"}
    assert states.split_filters("stalled") == {}
    assert (
        states.filter_words("stalled") == "Your move · Stalled"
        and states.filter_words("paused") == "Your move · No agent yet"
    )
    assert states.filter_words("done") == "Done"
