"""The Mode panel's words for preferences: the mode people know and the risk, never the stored values."""

from runs.contract.preferences import AUTONOMY, CHOICES, RISK_POLICY, STANCES, meaning
from runs.readmodels.preferences import mode_does, mode_words, unusual_mode_words


def test_a_mode_reads_as_its_label_and_its_risk():
    assert mode_words({"autonomy": "guided", "riskPolicy": "balanced"}) == "Guided, balanced risk"
    assert mode_words({"autonomy": "full_auto_never_stop", "riskPolicy": "balanced"}) == "Unattended, balanced risk"


def test_preferences_no_mode_sets_say_custom_in_the_same_words():
    said = mode_words({"autonomy": "full_auto_stop_on_user_deps", "riskPolicy": "aggressive"})
    assert said == "Custom: Autopilot, stops for you, aggressive risk"


def test_a_steps_page_says_the_mode_only_when_it_is_not_the_servers_default(settings):
    settings.WORKRAIL_DEFAULT_PREFERENCES = {"autonomy": "guided", "riskPolicy": "balanced"}
    assert unusual_mode_words({"autonomy": "guided", "riskPolicy": "balanced"}) == ""
    unusual = unusual_mode_words({"autonomy": "guided", "riskPolicy": "conservative"})
    assert unusual == "Custom: Guided, conservative risk"
    assert unusual_mode_words(None) == ""


def test_the_mode_panel_says_what_the_agent_does_under_every_choice():
    assert mode_does({"autonomy": "guided", "riskPolicy": "balanced"}) == (
        "The agent asks you at every confirmation, and weighs risk against speed."
    )
    for autonomy in AUTONOMY:  # every typed value has words: none falls through to the stored name
        for risk in RISK_POLICY:
            said = mode_does({"autonomy": autonomy, "riskPolicy": risk})
            assert said.startswith("The agent ") and ", and " in said
            assert autonomy not in said and "riskPolicy" not in said
    assert mode_does({}) == ""


def test_every_value_says_its_stance_to_the_agent_and_to_a_person_from_one_row():
    for key, values in CHOICES.items():
        for value in values:
            stance = STANCES[key, value]  # no value without words for either reader
            assert stance.asks and stance.does and stance.asks != stance.does
            assert meaning(key, value) == stance.asks
    assert set(STANCES) == {(key, value) for key, values in CHOICES.items() for value in values}
