"""Words against structure (workflows_app/prose/agreement.py): the readings of prompt prose, and a walk over every
bundled workflow and WorkRail's library checking that what a prompt says of its output contract's
fields, of a context variable's values and of line lengths agrees with the structure.

Our bundled workflows must agree. WorkRail's library is third-party: what the walk finds there is
reported, and a disagreement passes only when it is listed below with the reason we leave it.
Run it over WorkRail's whole library with WR_TEST_CORPUS_DIR=<a checkout with workflows/ in it>.
"""

from __future__ import annotations

import pytest

from tests.support.corpus import CORPUS_WORKFLOWS, skip_without_corpus
from tests.workflows_app.engine.scripted_run import load_catalog
from workflows_app import prose
from workflows_app.catalog import CatalogLoader
from workflows_app.engine.tree import top_steps, walk
from workflows_app.sources import BUNDLED_DIR, Source, SourceKind

BUNDLED_IDS = sorted(path.stem for path in BUNDLED_DIR.glob("*.json"))

# (workflow id, step id) -> why a disagreement in WorkRail's own files is left as it is: their files and
# their contracts (carried over rule for rule from WorkRail's zod schemas) are not ours to change.
THIRD_PARTY_ALLOWED: dict[tuple[str, str], str] = {
    ("wr.mr-review", "phase-6-final-handoff"): "WorkRail's final MR-review step shows the review_verdict schema "
    "'EXACTLY', findingCategory included, while WorkRail's own contract makes findingCategory optional; the "
    "template our server writes from the contract marks it optional, which is what WorkRail enforces.",
}

FINDINGS_SCHEMA = {
    "type": "object",
    "required": ["kind", "findings"],
    "properties": {
        "kind": {"const": "mr_review.findings"},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["severity", "title"],
                "properties": {
                    "severity": {"enum": ["Major", "Minor"]},
                    "title": {"type": "string"},
                    "location": {"type": "object", "properties": {"file": {"type": "string"}, "line": {}}},
                    "rationale": {"type": "string"},
                    "suggestion": {"type": "string"},
                },
            },
        },
    },
}
# The words of our merge-request review before issue 28: every part of a finding asked for plainly.
FINDINGS_WORDS = (
    "- `findings`: each with `severity`, a short `title`, a `location` (`file`, and `line` where there is one), "
    "a `rationale` (what goes wrong, and when) and a `suggestion` (the change to make)."
)


def step(prompt: str, **parts):
    return {"id": "s", "title": "S", "prompt": prompt, **parts}


def test_a_field_asked_for_plainly_is_required_and_one_with_a_condition_is_optional():
    words = prose.field_demands(FINDINGS_WORDS, ["severity", "title", "location", "file", "line", "rationale"])
    assert {name: found.demand for name, found in words.items()} == {
        "severity": "required",
        "title": "required",
        "location": "required",
        "file": "required",
        "line": "optional",
        "rationale": "required",
    }
    handoff = "- `version`: 1, and `branchName` if the work is on a branch;\n- `correctedAssumptions`, if any: pairs."
    demands = prose.field_demands(handoff, ["version", "branchName", "correctedAssumptions"])
    assert [(name, found.demand) for name, found in demands.items()] == [
        ("version", "required"),
        ("branchName", "optional"),
        ("correctedAssumptions", "optional"),
    ]
    assert prose.field_demands("Give each a title and a rationale.", ["title", "rationale"]) == {}  # not code
    schema = 'Emit it using EXACTLY this schema (no extra fields):\n{\n  "verdict": "clean",\n  "note": "x"\n}'
    assert {name: found.demand for name, found in prose.field_demands(schema, ["note"]).items()} == {"note": "required"}
    example = 'Provide a loop control artifact:\n```json\n{"decision": "stop", "metadata": {"reason": "done"}}\n```'
    assert prose.field_demands(example, ["metadata", "reason"]) == {}  # an example shows optional fields freely


def test_the_contract_side_reads_required_and_optional_at_every_depth():
    fields = prose.contract_fields(FINDINGS_SCHEMA)
    assert fields["findings"] == {"required"} and fields["rationale"] == {"optional"}
    assert fields["file"] == {"optional"} and "kind" not in fields  # a constant: the server writes it


def test_a_contract_that_lets_go_of_what_the_words_require_is_a_disagreement():
    """Issue 28: our mr_review asked each finding for its rationale and suggestion; its contract marked them
    "optional; or remove this field"."""
    compiled = {"steps": [step(FINDINGS_WORDS, outputContract={"schema": FINDINGS_SCHEMA})]}
    messages = [found.message for found in prose.disagreements(compiled)]
    assert [message.split(" (")[0] for message in messages] == [
        "the prompt makes `location` required",
        "the prompt makes `file` required",
        "the prompt makes `rationale` required",
        "the prompt makes `suggestion` required",
    ]
    assert messages[2].endswith("the contract lets it out")


def test_a_stated_line_length_other_than_the_contracts_is_a_disagreement():
    """Issue 28: the coding hand-off said "under 200 characters" where its contract allows 300 for a path."""
    schema = {
        "type": "object",
        "properties": {
            "keyDecisions": {"type": "array", "items": {"type": "string", "maxLength": 200}},
            "filesChanged": {"type": "array", "items": {"type": "string", "maxLength": 300}},
        },
    }
    assert prose.stated_character_limits("Keep each line under 200 characters.") == (200,)
    other = "- `commitSubject`: imperative mood, max 72 chars\n- `keyDecisions`: at most 200 characters each"
    assert prose.stated_character_limits(other, ["keyDecisions"]) == (200,)  # the 72 is said of something else
    compiled = {"steps": [step("Keep each line under 200 characters.", outputContract={"schema": schema})]}
    [found] = prose.disagreements(compiled)
    assert found.message == "the prompt states 200 characters, the contract allows 200, 300"
    paths = {"schema": schema["properties"]["filesChanged"]}
    same = {"steps": [step("Keep each line under 300 characters.", outputContract=paths)]}
    assert prose.disagreements(same) == []


def test_values_listed_for_a_variable_that_no_condition_compares_are_a_disagreement():
    """Issue 28: "compares it with "complex", "simple"" while the prompt offered `standard` too."""
    prompt = "Set context `complexity` to:\n- `simple`: small;\n- `standard`: ordinary;\n- `complex`: large.\nGo on."
    assert prose.listed_values(prompt) == {"complexity": ("simple", "standard", "complex")}
    fragments = [{"id": "a", "when": {"var": "complexity", "equals": "simple"}, "text": "x"}]
    compiled = {
        "steps": [
            step(prompt),
            {"id": "deep", "prompt": "Go deep.", "runCondition": {"var": "complexity", "equals": "complex"}},
            {"id": "loop", "kind": "loop", "body": [step("Review.", promptFragments=fragments)]},
        ]
    }
    [found] = prose.disagreements(compiled)
    assert "standard appears in no condition" in found.message
    fragments.append({"id": "b", "when": {"var": "complexity", "in": ["standard"]}, "text": "y"})
    assert prose.disagreements(compiled) == []


@pytest.fixture(scope="module")
def bundled():
    return load_catalog()


@pytest.mark.parametrize("workflow_id", BUNDLED_IDS)
def test_every_bundled_workflow_says_in_words_what_its_structure_says(bundled, workflow_id):
    entry = bundled.get(workflow_id)
    assert entry is not None
    assert [(found.step_id, found.message) for found in prose.disagreements(entry.compiled)] == []


def test_workrails_library_says_in_words_what_its_structure_says_or_is_listed_with_a_reason():
    skip_without_corpus()
    # Loaded as a user adds it, from git: its `wr.` ids are kept (as an extra directory they are refused).
    sources = [Source(SourceKind.BUNDLED, BUNDLED_DIR, 0), Source(SourceKind.GIT, CORPUS_WORKFLOWS, 1)]
    catalog = CatalogLoader(sources).load()
    theirs = [entry for entry in catalog.entries if entry.id not in BUNDLED_IDS]
    assert theirs, f"no workflow of WorkRail's loaded from {CORPUS_WORKFLOWS}"
    report = [
        f"{entry.id} / {found.step_id}: {found.message}"
        for entry in theirs
        for found in prose.disagreements(entry.compiled)
        if (entry.id, found.step_id) not in THIRD_PARTY_ALLOWED
    ]
    assert report == []


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        ("If delegation is available, spawn TWO WorkRail Executors SIMULTANEOUSLY running `routine-x`.", True),
        ("Before delegating, restate the current hypothesis.", True),
        ("Delegate a second look to a subagent.", True),
        ("**DO NOT DELEGATE** - do this investigation yourself.", False),
        ("Conflict resolution is main-agent work. Do not delegate synthesis.", False),
        ("QUICK: minimal delegation, fast review. Subagent agreement alone is not proof.", False),
        ("Fix the bug and run the tests.", False),
    ],
)
def test_a_prompt_asks_to_delegate_when_a_delegating_verb_is_not_negated(prompt, asks):
    assert prose.asks_to_delegate(prompt) is asks


def test_in_workrails_library_the_steps_that_hand_work_to_subagents_ask_to_delegate():
    skip_without_corpus()
    sources = [Source(SourceKind.BUNDLED, BUNDLED_DIR, 0), Source(SourceKind.GIT, CORPUS_WORKFLOWS, 1)]
    catalog = CatalogLoader(sources).load()

    def asking(workflow_id: str) -> set[str]:
        entry = catalog.get(workflow_id)
        assert entry is not None, workflow_id
        return {s["id"] for s in walk(top_steps(entry.compiled)) if prose.asks_to_delegate(s.get("prompt") or "")}

    # "For each batch in `bucketABatches`, delegate a bounded translation task"; the triage before it only
    # says work "will be delegated to subagents".
    conversion = asking("workrail.cross-platform-code-conversion")
    assert "phase-4-delegate-bucket-a" in conversion and "phase-2-triage" not in conversion
    assert asking("workrail.architecture-scalability-audit") == set()  # "Do not delegate synthesis."
