"""Where a step sits in its workflow's outline (runs/readmodels/step_places.py): "step 2 of 3", and in a loop,
one locator after the step's name on rows, headings, cards and the timeline, the step (lettered in a loop of
several steps: "step 2b of 3") then its round in brackets ("step 2b of 3 (round 2 of 3)", "(slice 2 of 3)" when the
loop declares its item, "(area 2 of 2: api)" with the item when the title does not name it: friction22a A1, 60a 4,
60b 2, 61a 6, 61b 1); in full, with the loop's name, in their
tooltip (never the outline's "2.2 of 3", read as a
version number);
never the count of steps taken, which runs past the outline's length as soon as a loop repeats. The run page's
steps, its where-line, its panels, the graph and the node page all say it, the round in one format everywhere."""

from __future__ import annotations

import pytest

from runs.contract.dashboard import StepPlace
from runs.models import Node, Run
from runs.readmodels import graph_drawing, run_view, step_places
from tests.support.looped_run import looped_and_forked
from tests.support.mcp_calls import ack, start_workflow

pytestmark = pytest.mark.django_db


OUTLINE = (0, 2, 0)  # three entries; the second a loop of two steps
ONE_STEP_LOOP = (0, 1, 0)


def test_a_place_is_the_cursors_outline_entry_and_its_loops_round():
    assert step_places.place(0, None, OUTLINE) == StepPlace(position=1, length=3)
    assert step_places.place(3, None, OUTLINE) is None  # the cursor of a completed run stands past the end
    assert step_places.place(None, None, OUTLINE) is None
    assert StepPlace(position=2, length=3).words == "step 2 of 3"
    assert StepPlace(position=2, length=3, round=2).words == "step 2 of 3 (round 2)"


def test_the_dashboard_names_a_step_before_its_number():
    looped = step_places.place(3, 2, (0, 0, 0, 1, 0, 0, 0, 0), 0, loops=("",) * 3 + ("Review each area",) + ("",) * 4)
    # One short form on rows and headings (friction12 4); the whole place, the loop named, is their tooltip.
    assert step_places.named("Review storage", looped) == "Review storage · step 4 of 8 (round 2)"
    assert step_places.full_words(looped) == "step 4 of 8 (round 2) in “Review each area”"
    assert step_places.full_words(StepPlace(position=3, length=5)) == ""  # the short form says it all
    assert step_places.full_words(None) == ""
    assert step_places.named("Deploy", StepPlace(position=3, length=5)) == "Deploy · step 3 of 5"
    assert step_places.named("Deploy", None) == "Deploy"  # its place not known: its name alone
    assert step_places.named("", StepPlace(position=3, length=5)) == "step 3 of 5"


def test_inside_a_loop_of_several_steps_the_place_keeps_which_as_the_outline_numbers_them():
    # On the wire, as the outline numbers it: the loop at entry 2, its second step.
    found = step_places.place("1", "2", OUTLINE, "1")
    assert found is not None and found.model_dump() == StepPlace(position=2, length=3, round=2, inner=2).model_dump()
    # No "part 2 of 2" (friction60a 4, 60b 2: it needed the glossary), but a letter (friction61a 6, 61b 1: two
    # steps of one round read the same).
    assert step_places.place(1, 2, OUTLINE, 0).words == "step 2a of 3 (round 2)"
    assert step_places.place(1, 2, OUTLINE, 1).words == "step 2b of 3 (round 2)"
    # A loop of one step has no letter (the wire keeps the outline's 2.1).
    one = step_places.place(1, 2, ONE_STEP_LOOP, 0)
    assert one is not None and one.model_dump() == StepPlace(position=2, length=3, round=2, inner=1).model_dump()
    assert step_places.place(1, 2, ONE_STEP_LOOP, 0).words == "step 2 of 3 (round 2)"


def test_a_loop_is_named_by_its_title_and_its_rounds_counted_when_fixed_on_entry():
    loops = ("", "Review each area", "")
    # forEach: its items fixed on entry; for: its count; a loop until a condition holds: no count to give.
    each = step_places.place(1, 2, OUTLINE, 0, loops=loops, frame={"iteration": 2, "items": ["a", "b", "c"]})
    assert each is not None and each.words == "step 2a of 3 (round 2 of 3: b) in “Review each area”"
    counted = step_places.place(1, 1, OUTLINE, 0, loops=loops, frame={"iteration": 1, "count": 4})
    assert counted is not None and counted.words == "step 2a of 3 (round 1 of 4) in “Review each area”"
    # Rows, headings, chips, cards: one locator, the step then its round (friction22a A1: never the round alone, which
    # hid the step's number), numbered inside the loop; the loop's name in full, their tooltip.
    assert counted.brief == "step 2a of 3 (round 1 of 4)"
    long = step_places.place(1, 149, OUTLINE, 1, loops=loops, frame={"iteration": 149, "count": 150})
    assert long is not None and long.brief == "step 2b of 3 (round 149 of 150)"
    assert step_places.full_words(long) == "step 2b of 3 (round 149 of 150) in “Review each area”"
    open_ended = step_places.place(1, 5, OUTLINE, 0, loops=loops, frame={"iteration": 5})
    assert open_ended is not None and open_ended.words == "step 2a of 3 (round 5) in “Review each area”"
    # The loop's title as the file writes it, a placeholder in brackets, never raw braces.
    titled = step_places._outline({"steps": [{"id": "l", "kind": "loop", "title": "Review {{x}}", "body": [{}]}]})
    assert titled.loops == ("Review [x]",)
    assert step_places.place(1, None, OUTLINE, 1) == StepPlace(position=2, length=3)  # no round: no loop


def test_a_looped_run_says_its_outline_position_and_round_not_the_steps_taken(service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3, stop_after=5)
    run = Run.objects.get(public_id=looped.run_id)
    places = step_places.of_run(run)
    first_step = Node.objects.get(run=run, depth=1)
    assert places[first_step.pk].words == "step 2a of 3 (round 1 of 3) in “Verify each slice”"
    words = [p.words if p else "" for _, p in sorted((n.depth, places.get(n.pk)) for n in run.nodes.all())]
    assert words[0] == "step 1 of 3"
    assert (
        "step 2a of 3 (round 3 of 3) in “Verify each slice”" in words
    )  # the sixth step taken is still the outline's second entry
    assert all(" of 3" in w for w in words if w)  # never "step 6"
    detail = run_view.run_detail(looped.run_id)
    said = [step.place.words for step in detail.steps if step.place is not None]
    # The loop's two steps lettered apart (friction61a 6, 61b 1), the loop named by its title.
    assert said[:3] == [
        "step 1 of 3",
        "step 2a of 3 (round 1 of 3) in “Verify each slice”",
        "step 2b of 3 (round 1 of 3) in “Verify each slice”",
    ]
    assert [step.place.inner for step in detail.steps[1:3] if step.place] == [1, 2]  # the outline's 2.1, 2.2
    assert detail.where is not None
    assert detail.where.words == "Record what the slice showed · step 2b of 3 (round 2 of 3)"


def test_a_delegated_runs_page_says_where_it_is_in_the_same_words(fanout):
    parallel = ack(start_workflow(fanout, {"moduleName": "billing"}))
    first = parallel["pending"]["delegations"][0]
    detail = run_view.run_detail(first["runId"])
    assert detail.run.delegated_by is not None
    # Not the agent's branch-by-branch words ("open at step 1: Run tests"): the dashboard's own.
    assert detail.where is not None and detail.where.words == "Run tests · step 1 of 2"


def test_two_steps_of_one_round_are_lettered_apart():
    loops = ("", "Verify each slice", "")
    frame = {"iteration": 1, "count": 3}
    verify, record = (step_places.place(1, 1, OUTLINE, inner, loops=loops, frame=frame) for inner in (0, 1))
    assert verify is not None and record is not None
    assert (verify.number, record.number) == ("2.1", "2.2")  # the wire's numbers, as the outline file has them
    assert record.words == "step 2b of 3 (round 1 of 3) in “Verify each slice”"
    # Friction60a 4, 60b 2: "loop round 1 of 3, part 2 of 2" needed the glossary for "round" and "part"; friction61a
    # 6, 61b 1: with no mark at all, two different steps shared one locator. A letter each, never "2.2 of 3"
    # (friction24a 10).
    assert (verify.brief, record.brief) == ("step 2a of 3 (round 1 of 3)", "step 2b of 3 (round 1 of 3)")
    said = step_places.named("Record what the slice showed", record)
    assert said == "Record what the slice showed · step 2b of 3 (round 1 of 3)"
    assert step_places.full_words(record) == record.words
    assert not any("2." in w or "part" in w or "loop" in w for p in (verify, record) for w in (p.brief, p.short(27)))


def test_a_looped_steps_place_says_its_round_in_brackets_after_its_step():
    # Friction60a 4, 60b 2: "step 2 of 3 · loop round 2 of 3, part 2 of 2" was hard to parse; the round in brackets
    # binds to the step before it, and a card never drops the step (the round alone read as another counter).
    looped = step_places.place(1, 2, OUTLINE, 1, loops=("", "Verify each slice", ""), frame={"count": 3})
    assert looped is not None
    assert looped.brief == "step 2b of 3 (round 2 of 3)"
    assert looped.short(27) == looped.brief
    # Shorter: the round's total goes, never the step's (friction61a 6, 61b 1: "step 2 (round 149 of 150)").
    assert looped.short(22) == "step 2b of 3 (round 2)"
    assert looped.rounds_words(3) == "rounds 2-3 of 3"
    assert StepPlace(position=2, length=3).brief == "step 2 of 3"  # off a loop, no brackets


@pytest.mark.parametrize(
    ("round_", "frame", "said"),
    [
        (1, {"iteration": 1, "count": 150}, "round 1 of 150"),  # the first round counts from 1
        (150, {"iteration": 150, "count": 150}, "round 150 of 150"),  # the last round is the loop's length
        (2, {"iteration": 2, "items": ["api", "storage", "ui"]}, "round 2 of 3: storage"),  # forEach: per item
        (3, {"iteration": 3, "items": ["a", "b", {"name": "ui"}]}, "round 3 of 3"),  # an item not a text: unsaid
        (1, {"iteration": 1, "items": ["x" * 25]}, "round 1 of 1"),  # too long for a phone's two lines: unsaid
        (7, {"iteration": 7}, "round 7"),  # a while loop: its length is not fixed, so none is said
        (7, {"iteration": 7, "items": []}, "round 7"),  # no items to count: no length either
    ],
)
def test_a_round_is_counted_from_one_in_one_format(round_, frame, said):
    where = step_places.place(1, round_, OUTLINE, 1, loops=("", "Verify each slice", ""), frame=frame)
    assert where is not None
    assert where.loop_words() == said
    assert where.brief == f"step 2b of 3 ({said})"
    assert where.words == f"step 2b of 3 ({said}) in “Verify each slice”"


def test_a_stretch_of_rounds_says_its_rounds_in_the_same_format():
    frame = {"iteration": 5, "count": 150}
    first = step_places.place(1, 5, OUTLINE, 0, loops=("", "Verify each slice", ""), frame=frame)
    assert first is not None and first.rounds_words(149) == "rounds 5-149 of 150"
    open_ended = step_places.place(1, 5, OUTLINE, 0, frame={"iteration": 5})
    assert open_ended is not None and open_ended.rounds_words(9) == "rounds 5-9"


def test_one_node_reads_the_same_in_the_graph_and_the_steps_list(service_catalog):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    detail = run_view.run_detail(looped.run_id)
    graph = {node.node_id: node for node in detail.graph.nodes}
    listed = [step for step in detail.steps if step.place is not None and step.node_id in graph]
    assert {step.place.number for step in listed if step.place is not None} >= {"1", "2.1", "2.2"}
    for step in listed:
        node = graph[step.node_id]
        assert node.place == step.place
        # The graph says the list heading's short form: same numbers, same format (friction12 4).
        assert graph_drawing.step_words(node) == step.place.brief


def test_a_loops_steps_have_no_part_count_but_a_letter_each():
    # Friction60a 4, 60b 2: "part 1 of 3" needed the glossary; friction61a 6, 61b 1: letters, as both readers
    # proposed, and none in a loop of one step.
    assert StepPlace(position=2, length=3, round=1, inner=1).brief == "step 2 of 3 (round 1)"
    assert step_places.place(1, 1, ONE_STEP_LOOP, 0).brief == "step 2 of 3 (round 1)"
    said = [step_places.place(1, 1, (0, 3, 0), i).brief for i in range(3)]
    assert said == ["step 2a of 3 (round 1)", "step 2b of 3 (round 1)", "step 2c of 3 (round 1)"]
    assert [step_places.place(1, 1, (0, 28, 0), i).letter for i in (25, 26, 27)] == ["z", "aa", "ab"]
    assert StepPlace(position=1, length=2).brief == "step 1 of 2"  # off a loop


def test_a_foreach_loop_names_the_item_it_is_on_unless_the_steps_title_does():
    # Friction60a 4, 60b 2: the readers wanted "api (area 2 of 2)"; the item is said once: after the round when the
    # step's title does not read it (its placeholders, from the compiled workflow), else by the title alone.
    compiled = {
        "steps": [
            {"id": "a", "title": "Triage"},
            {
                "id": "l",
                "kind": "loop",
                "title": "Review each area",
                "loop": {"type": "forEach", "items": "areas", "itemVar": "area"},
                "body": [{"id": "r", "title": "Review {{area}}"}, {"id": "n", "title": "Note what it showed"}],
            },
        ]
    }
    outline = step_places._outline(compiled)  # type: ignore[arg-type]
    assert outline.items_titled == ((), (True, False))
    frame = {"iteration": 2, "items": ["storage", "api"]}

    def at(inner: int) -> StepPlace | None:
        return step_places.place(
            1, 2, outline.sizes, inner, nouns=outline.nouns, frame=frame, items_titled=outline.items_titled
        )

    review, note = at(0), at(1)
    assert review is not None and step_places.named("Review api", review) == "Review api · step 2a of 2 (area 2 of 2)"
    assert note is not None and step_places.named("Note what it showed", note) == (
        "Note what it showed · step 2b of 2 (area 2 of 2: api)"
    )


def test_one_locator_off_a_loop_in_a_loop_nested_and_named_by_the_loops_item():
    # Off a loop: the outline's entry; in a loop: the entry then its round (friction22a A1).
    assert StepPlace(position=3, length=7).brief == "step 3 of 7"
    frame = {"iteration": 2, "count": 3}
    looped = step_places.place(1, 2, OUTLINE, 1, loops=("", "Verify each slice", ""), frame=frame)
    assert looped is not None and looped.brief == "step 2b of 3 (round 2 of 3)"
    assert looped.words == "step 2b of 3 (round 2 of 3) in “Verify each slice”"
    # A step of a loop nested in the loop's second step: the outermost loop's round, the one the outline shows (the
    # cursor's first loop frame), as for any of its steps.
    nested = step_places.place(1, 2, OUTLINE, 1, frame={"iteration": 2, "count": 3})
    assert nested is not None and nested.brief == "step 2b of 3 (round 2 of 3)"
    # A forEach loop that declares its item names each round by it; no other loop, name or default does.
    sliced = step_places.place(1, 2, OUTLINE, 0, nouns=("", "slice", ""), frame={"items": [{}, {}, {}]})
    assert sliced is not None and sliced.brief == "step 2a of 3 (slice 2 of 3)"
    assert sliced.words == "step 2a of 3 (slice 2 of 3)"
    assert sliced.rounds_words(3) == "slices 2-3 of 3"

    def loop(kind: str, item: str) -> dict:
        return {"id": "l", "type": "loop", "loop": {"type": kind, "itemVar": item}, "body": [{}]}

    assert step_places.noun(loop("forEach", "currentSlice")) == "slice"
    assert step_places.noun(loop("forEach", "area")) == "area"
    assert [step_places.noun(loop("forEach", name)) for name in ("currentItem", "serviceName", "slice_2", "")] == [
        "",
        "",
        "",
        "",
    ]
    assert step_places.noun(loop("for", "currentSlice")) == ""  # a `for` loop holds no items
    assert step_places.noun({"id": "s", "title": "A step"}) == ""


def test_one_place_says_itself_long_for_lists_and_short_for_cards_in_the_same_order():
    # Friction26b 4, 26a 11: cards, lists and the run card counted one step three ways. One place, two forms:
    # the long one of lists and the run card, the short one of graph cards, the loop's unit the same in both.
    where = step_places.place(1, 2, (0, 2, 0), 1, nouns=("", "slice", ""), frame={"count": 3})
    assert where is not None and where.unit == "slice"
    assert where.brief == "step 2b of 3 (slice 2 of 3)"
    assert where.short() == where.brief  # no limit: whole
    # Too long for a card: the round's length left out, never the step's (friction61a 6, 61b 1: "step 2 (round 149
    # of 150)" beside "step 3 of 3"); never the round without its step (friction60a 4), never "slice 2/3"; shorter
    # still, the step's place.
    assert where.short(22) == "step 2b of 3 (slice 2)"
    assert where.short(17) == where.short(1) == "step 2b of 3"
    # The item goes before any total does.
    named = step_places.place(1, 2, (0, 1, 0), 0, nouns=("", "area", ""), frame={"items": ["storage", "api"]})
    assert named is not None and named.brief == "step 2 of 3 (area 2 of 2: api)"
    assert named.short(27) == "step 2 of 3 (area 2 of 2)"
    assert named.short(24) == "step 2 of 3 (area 2)"
    many = step_places.place(1, 149, (0, 2, 0), 1, frame={"count": 150})
    assert many is not None and many.short(27) == "step 2b of 3 (round 149)"
    off = StepPlace(position=1, length=3)
    assert off.short() == off.brief == "step 1 of 3"
