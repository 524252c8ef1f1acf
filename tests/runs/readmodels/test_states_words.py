"""A state said as a plain clause where a second pill would compete (states.as_words; friction25a 13)."""

from __future__ import annotations

from runs.readmodels import states


def test_every_state_has_a_clause_and_a_refused_step_says_whose_move():
    assert set(states.AS_WORDS) == set(states.LABELS)
    assert states.as_words("running", "agents") == "the agent is working"
    assert states.as_words("blocked", "agents") == "the agent is resending a refused step"
    assert states.as_words("blocked", "yours") == "refused, your move"
