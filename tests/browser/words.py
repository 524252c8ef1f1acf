"""What a person reads on a page, without opening anything: its text as rendered (a closed <details>
holds its contents back), less the message for the agent, which is the thing to copy and names its
tokens on purpose. `assert_plain_words` fails on the ids and internal words that belong in a
"Details"/"For developers" fold: tokens' names, "nodes", workflow and artifact kind ids, run ids."""

from __future__ import annotations

import re
from typing import Any

# Shown text, as rendered: innerText leaves out what a closed <details> folds away.
VISIBLE_TEXT = """() => {
  let text = document.body.innerText;
  for (const el of document.querySelectorAll(".agent-message")) text = text.split(el.innerText).join(" ");
  return text;
}"""

JARGON = re.compile(r"ackToken|\bnodes\b|\bwr\.[a-z_]+|\bmr_review\.[a-z_]+|\brun_[0-9a-f]{6,}")


def visible_text(page: Any) -> str:
    return str(page.evaluate(VISIBLE_TEXT))


def assert_plain_words(page: Any) -> None:
    found = sorted(set(JARGON.findall(visible_text(page))))
    assert not found, f"{page.url} shows ids or internal words outside a fold: {found}"
