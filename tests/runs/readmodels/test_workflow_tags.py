"""The sessions list names a session's workflows by name; an id shows only where two share a name."""

from runs.readmodels.overview import WorkflowTag, tagged


def test_workflows_are_named_and_their_ids_kept_for_the_title():
    names = {"wr.routine-focused_plan": "Focused Plan Routine"}
    assert tagged(["wr.routine-focused_plan"], names) == [
        WorkflowTag("wr.routine-focused_plan", "Focused Plan Routine", id_shown=False)
    ]


def test_an_id_shows_beside_a_name_two_workflows_share_and_an_unknown_one_is_its_id():
    names = {"team.review": "Code Review", "wr.code_review": "Code Review"}
    assert [(t.name, t.id_shown) for t in tagged(["team.review", "wr.code_review", "x.y"], names)] == [
        ("Code Review", True),
        ("Code Review", True),
        ("x.y", False),
    ]
