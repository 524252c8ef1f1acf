"""Prompt snippets a workflow names with `{"kind": "ref", "refId": "wr.refs.<name>"}` in promptBlocks.

The ids are WorkRail's (its ref registry); the texts are ours. A snippet is pasted into the prompt at
compile time, so it is part of the compiled workflow and of its hash.
"""

from __future__ import annotations


def _lines(*lines: str) -> str:
    return "\n".join(lines)


REFS: dict[str, str] = {
    "wr.refs.memory_usage": _lines(
        "Memory tools (memory_briefing, memory_store, memory_query), when this session has them:",
        "- before you start, ask them what earlier sessions learned about this workspace;",
        "- once something important is done, store what you found and decided;",
        "- give each entry a topic and a title a later session would search for;",
        "- memory only helps: if a call fails or the tools are missing, carry on without it.",
    ),
    "wr.refs.memory_store": _lines(
        "If you have a memory_store tool:",
        "- save what this phase established under a topic and a title that say what it is about;",
        "- include the files involved, the decisions taken and the reasons for them;",
        "- a failed save changes nothing here: go on with the workflow.",
    ),
    "wr.refs.memory_query": _lines(
        "If you have memory_briefing or memory_query tools:",
        "- look up what earlier sessions recorded that bears on this task;",
        "- search within this workspace to find related past work;",
        "- when memory cannot be reached, start from what is in front of you instead.",
    ),
    "wr.refs.notes_first_durability": _lines(
        "Notes are the record that lasts:",
        "- write what each step did, found and decided into output.notesMarkdown before moving on;",
        "- keep the state of the work in those notes and in explicit context values, not in side files;",
        "- documents you write for people (plans, reviews) are for reading; the workflow does not depend on them;",
        "- if the chat is rewound or lost, the notes and context survive and are what you resume from.",
    ),
    "wr.refs.synthesis_under_disagreement": _lines(
        "When the results you combine disagree:",
        "- the disagreement is work to do: never paper over answers that contradict each other;",
        "- the same problem raised by two or more sources at the same severity counts as confirmed;",
        "- the same problem raised at different severities takes the higher one, unless the lower comes "
        "with concrete evidence against it;",
        "- a problem raised by one source only is checked, and blocks only when it is plainly critical;",
        "- when one source calls something a false alarm and another a real issue, decide it yourself and "
        "write down why before you conclude;",
        "- until a real disagreement is settled, the findings outrank any early recommendation;",
        "- record each contradiction you resolved and how.",
    ),
    "wr.refs.parallelize_cognition_serialize_synthesis": _lines(
        "Work in parallel, conclude in one place:",
        "- independent thinking (gathering context, proposing hypotheses, audits, separate reviews) may run "
        "side by side;",
        "- combining those results, settling contradictions, taking the decisions and writing the final "
        "outputs happen one at a time, by you, the main agent;",
        "- no parallel helper gets to fix the final answer: it hands back evidence, you decide;",
        "- prefer one well-prepared batch of delegations to many small ones in a row;",
        "- give each parallel helper its own area, with no overlap between them.",
    ),
    "wr.refs.adversarial_challenge_rules": _lines(
        "Challenge the current answer for real:",
        "- try to break the leading position instead of collecting support for it;",
        "- for each finding or conclusion, name the evidence that would refute it and check whether it exists;",
        "- a position that survives a serious attempt to weaken it is stronger for it;",
        "- a weakness the challenge exposes becomes a finding, and the position changes accordingly;",
        "- rate severity by the actual risk, not to keep the peace;",
        "- push back on overstated severity as hard as on understated severity: false alarms cost attention too;",
        "- a serious concern raised independently by two or more challengers blocks until it is addressed.",
    ),
}
