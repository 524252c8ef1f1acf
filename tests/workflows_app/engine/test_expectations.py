"""Which context variables the pending step should provide: read later, not set, and either talked
about by this step or read at the very next decision point."""

from tests.workflows_app.engine.builders import loop, step, workflow
from workflows_app.engine import advance, expected_context, start, step_count

NOTES = {"notesMarkdown": "done"}


def keys(compiled, state):
    return [
        (item["key"], item["type"], item.get("values"), item["setByThisStep"])
        for item in expected_context(compiled, state)
    ]


def test_a_variable_the_step_talks_about_and_a_later_condition_reads_is_expected_of_it():
    compiled = workflow(
        step("triage", prompt="Triage the bug and set severity."),
        step("gather"),
        step("page", runCondition={"var": "severity", "equals": "critical"}),
        step("guard", runCondition={"var": "severity", "in": ["high", "critical"]}),
    )
    first = start(compiled)
    assert keys(compiled, first.state) == [("severity", "string", ["critical", "high"], True)]
    [item] = expected_context(compiled, first.state)
    assert item["why"] == (
        "the runCondition of step 'page' (it runs only when severity is \"critical\"); "
        'the runCondition of step \'guard\' (it runs only when severity is one of "high", "critical")'
    )
    # Once set, it is no longer asked for.
    assert keys(compiled, advance(compiled, first.state, output=NOTES, context={"severity": "low"}).state) == []


def test_a_variable_read_at_the_next_decision_is_expected_even_if_the_prompt_is_silent():
    compiled = workflow(step("first"), step("maybe", runCondition={"var": "retries", "gt": 2}), step("last"))
    assert keys(compiled, start(compiled).state) == [("retries", "number", None, False)]


def test_a_variable_read_much_later_and_not_mentioned_is_not_asked_for_yet():
    compiled = workflow(step("first"), step("second"), step("late", runCondition={"var": "flag"}))
    state = start(compiled).state
    assert keys(compiled, state) == []
    second = advance(compiled, state, output=NOTES)
    assert keys(compiled, second.state) == [("flag", "boolean", None, False)]


def test_loop_inputs_and_loop_conditions_are_expected_with_their_types():
    compiled = workflow(
        step("plan", prompt="List the areas to review."),
        loop("per-area", [step("review")], type="forEach", items="areas", maxIterations=10),
    )
    # Its prompt names "areas" without asking for it as a context value: a mention, said as one.
    assert keys(compiled, start(compiled).state) == [("areas", "array", None, False)]
    assert expected_context(compiled, start(compiled).state)[0]["mentionedByThisStep"] is True
    counted = workflow(step("setup"), loop("tries", [step("try")], type="for", count="attempts", maxIterations=5))
    assert keys(counted, start(counted).state) == [("attempts", "integer", None, False)]


def test_the_end_of_a_loop_iteration_is_a_decision_point_for_its_condition():
    compiled = workflow(
        loop(
            "until-fixed",
            [step("fix"), step("verify", prompt="Run the tests.")],
            type="while",
            condition={"var": "testsPass", "not_equals": True},
            maxIterations=5,
        ),
    )
    first = start(compiled)
    assert keys(compiled, first.state) == []  # `fix` is followed by `verify`, which decides nothing
    verify = advance(compiled, first.state, output=NOTES)
    assert keys(compiled, verify.state) == [("testsPass", "boolean", [True], False)]


def test_loop_variables_and_dotted_paths():
    compiled = workflow(
        step("collect", prompt="Collect the ticket."),
        step("escalate", runCondition={"var": "ticket.priority", "equals": "P1"}),
        loop(
            "each",
            [step("look", runCondition={"var": "currentItem", "equals": "x"})],
            type="forEach",
            items="xs",
            maxIterations=3,
        ),
    )
    # A path's root is an object; the loop's own variables are never asked of the agent.
    assert keys(compiled, start(compiled).state) == [("ticket", "object", None, False)]  # "Collect the ticket"


def test_nothing_is_expected_of_a_complete_run():
    compiled = workflow(step("only", runCondition={"var": "x"}))
    assert keys(compiled, start(compiled).state) == []


def test_step_count_counts_every_step_an_agent_can_be_given_once():
    compiled = workflow(step("a"), loop("l", [step("b"), step("c")], type="for", count=3, maxIterations=5), step("d"))
    assert step_count(compiled) == 4


def test_a_loops_own_variables_are_never_asked_for():
    compiled = workflow(
        step("outline", prompt="Outline the essay; each round improves it."),
        loop(
            "rounds",
            [step("draft", prompt="Round {{round}}.", runCondition={"var": "round", "gt": 1})],
            type="while",
            condition={"var": "round", "lt": 3},
            iterationVar="round",
            maxIterations=5,
        ),
    )
    assert keys(compiled, start(compiled).state) == []


def test_values_a_prompt_says_to_capture_are_asked_for_even_when_nothing_reads_them():
    """WorkRail's own workflows ask for context values as 'Capture: ...', in three ways."""
    compiled = workflow(
        step(
            "analyse",
            prompt="Read the ticket.\n\nCapture:\n- `ticketSummary` -- one paragraph\n"
            "- `ticketComplexity`: Simple / Standard / Complex\n\nThen stop.",
        ),
        step("scope", prompt="Capture scope, scopeDescription and auditComplexity in context. Then go on."),
        step("branch", prompt="Create a branch. Capture the branch name as `featureBranch`."),
        step("prose", prompt="Run the suite and capture the full output in your notes."),
    )
    state = start(compiled).state
    assert keys(compiled, state) == [
        ("ticketSummary", "any", None, True),
        ("ticketComplexity", "string", None, True),
    ]
    [_, complexity] = expected_context(compiled, state)
    assert complexity["choices"] == ["Simple", "Standard", "Complex"]
    assert complexity["why"] == "nothing later reads it; kept for the record"
    state = advance(compiled, state, output=NOTES).state
    assert [key for key, *_ in keys(compiled, state)] == ["scope", "scopeDescription", "auditComplexity"]
    state = advance(compiled, state, output=NOTES).state
    assert [key for key, *_ in keys(compiled, state)] == ["featureBranch"]
    state = advance(compiled, state, output=NOTES).state
    assert keys(compiled, state) == []  # "capture the full output" names no variable


def test_a_flag_the_prompt_offers_as_true_or_false_is_typed_boolean():
    compiled = workflow(
        step("classify", prompt="Set context.hasUI (true / false) and context.taskType (feature / docs).")
    )
    [has_ui, task_type] = expected_context(compiled, start(compiled).state)
    assert (has_ui["type"], has_ui.get("choices")) == ("boolean", None)
    assert (task_type["type"], task_type["choices"]) == ("string", ["feature", "docs"])


def test_why_names_only_what_reads_a_variable_after_this_step():
    compiled = workflow(
        step("collect", prompt="List the open questions."),
        step(
            "clarify",
            prompt="Ask about each of `ambiguities`; update `ambiguities` with what stays open.",
            runCondition={"var": "ambiguities", "not_equals": []},
        ),
        step("write", prompt="Write the cases."),
    )
    state = advance(compiled, start(compiled).state, output=NOTES, context={"ambiguities": ["a"]}).state
    [item] = expected_context(compiled, state)
    assert item["key"] == "ambiguities" and item["type"] == "array"  # typed by the condition it passed
    assert item["why"] == "nothing later reads it; kept for the record"  # its own runCondition is behind it


def test_a_value_the_prompt_says_to_set_to_true_or_false_is_a_boolean():
    compiled = workflow(step("repro", prompt="Set context `reproduced` to true or false."))
    [item] = expected_context(compiled, start(compiled).state)
    assert (item["key"], item["type"]) == ("reproduced", "boolean")


def test_only_what_the_prompt_asks_for_is_said_to_be_asked_and_nothing_later_reads_is_said_only_when_proven():
    """WorkRail's MR review: a word in a prompt is a mention, not a request; a value handed to delegations
    or named by a later prompt is not 'read by nothing'; a contract's enum for the same name is its set."""
    verdict = {
        "contractRef": "team.verdict",
        "schema": {
            "type": "object",
            "properties": {
                "kind": {"const": "team.verdict"},
                "recommendation": {"enum": ["clean", "minor", "blocking"]},
            },
        },
    }
    compiled = workflow(
        step("hypothesis", prompt="State your best guess about the review recommendation direction."),
        step(
            "classify",
            prompt="Set these keys in the next `continue_workflow` call's `context` object:\n"
            "- `reviewMode`: QUICK / STANDARD / THOROUGH\n- `reviewFactPacket`",
        ),
        {
            "id": "families",
            "title": "Families",
            "kind": "parallel",
            "prompt": "Run the families.",
            "parallelDelegations": [{"workflowId": "team.family", "contextMapping": {"reviewFactPacket": "facts"}}],
        },
        step("synthesis", prompt="Weigh each finding; in THOROUGH mode check twice."),
        step("gate", runCondition={"var": "recommendation", "equals": "clean"}),
        step("verdict", prompt="Give the verdict.", outputContract=verdict),
    )
    [recommendation] = expected_context(compiled, start(compiled).state)
    assert recommendation["key"] == "recommendation"
    assert recommendation["setByThisStep"] is False and recommendation["mentionedByThisStep"] is True
    assert recommendation["values"] == ["clean"]
    assert recommendation["allowed"] == ["clean", "minor", "blocking"]
    assert recommendation["allowedBy"] == "the 'team.verdict' contract of step 'verdict'"

    state = advance(compiled, start(compiled).state, output=NOTES).state
    found = {item["key"]: item for item in expected_context(compiled, state)}
    assert found["reviewMode"]["setByThisStep"] and found["reviewFactPacket"]["setByThisStep"]
    assert found["reviewFactPacket"]["why"] == (
        "the delegation of step 'families' to team.family (its run receives it as `facts`)"
    )
    assert found["reviewMode"]["why"] == (
        "no later condition, loop or template reads it; the prompts of later steps name it or its values: 'synthesis'"
    )


def test_a_value_many_later_prompts_name_says_the_first_two_and_counts_the_rest():
    """Every later step that names it is the same news: a line names two and counts the others."""
    compiled = workflow(
        step("triage", prompt="Set context `rigorMode`: QUICK / THOROUGH."),
        *(step(f"phase-{n}", prompt=f"Phase {n}: in THOROUGH mode check twice.") for n in range(1, 6)),
    )
    [item] = expected_context(compiled, start(compiled).state)
    assert item["why"] == (
        "no later condition, loop or template reads it; the prompts of later steps name it or its values: "
        "'phase-1', 'phase-2' and 3 more"
    )


def test_a_yes_or_no_value_is_not_named_by_a_later_prompt_that_says_true_or_false():
    """A trial agent was told a summary step named `reproduced` because its prompt said 'false'."""
    compiled = workflow(
        step("repro", prompt="Set context `reproduced` to true or false."),
        step("final-summary", prompt="Summarize; mark each claim true or false."),
    )
    [item] = expected_context(compiled, start(compiled).state)
    assert "final-summary" not in item["why"]
