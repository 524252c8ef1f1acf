"""What the compiler provides by name: prompt snippets (`wr.refs.*`), features (`wr.features.*`),
output contracts (`wr.contracts.*` and our `mr_review.*` artifact contracts), and routine templates
(`wr.templates.routine.*`).

The names, ids, field names and validation rules are WorkRail's (the same workflow must mean the
same thing here and there); the texts are ours. Workflows refer to these by id, so they take part in
the compiled workflow and therefore in its hash: editing a snippet here changes the hash of every
workflow using it. docs/workflows.md lists them all.
"""

from __future__ import annotations

from workflows_app.builtins.contracts import CONTRACTS, artifact_kind_of
from workflows_app.builtins.features import FEATURES
from workflows_app.builtins.refs import REFS
from workflows_app.builtins.templates import (
    ROUTINE_ID_PREFIX,
    ROUTINE_TEMPLATE_PREFIX,
    routine_name_of,
    routine_names_of,
    substitute_args,
)

__all__ = [
    "CONTRACTS",
    "FEATURES",
    "REFS",
    "ROUTINE_ID_PREFIX",
    "ROUTINE_TEMPLATE_PREFIX",
    "artifact_kind_of",
    "routine_name_of",
    "routine_names_of",
    "substitute_args",
]
