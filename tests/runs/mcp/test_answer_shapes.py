"""The JSON shapes the text renderings read (runs/mcp/answer_shapes.py, runs/readmodels/shapes.py) are
the contract models' JSON, key for key: a key is required exactly when the model's field has no
default (an answer dumped with exclude_unset always has those, and may leave the others out)."""

from __future__ import annotations

from typing import Any, NotRequired, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from runs.contract import catalog, execution, sessions
from runs.mcp import answer_shapes
from runs.readmodels import shapes

PAIRS: list[tuple[Any, type[BaseModel]]] = [
    (answer_shapes.Diagnostic, catalog.Diagnostic),
    (answer_shapes.WorkflowSource, catalog.WorkflowSource),
    (answer_shapes.WorkflowSummary, catalog.WorkflowSummary),
    (answer_shapes.WorkflowListJson, catalog.WorkflowList),
    (answer_shapes.UserInput, catalog.UserInput),
    (answer_shapes.WorkflowDetails, catalog.WorkflowDetails),
    (answer_shapes.StepOutline, catalog.StepOutline),
    (answer_shapes.WorkflowInspectionJson, catalog.WorkflowInspection),
    (answer_shapes.Warning, execution.Warning),
    (answer_shapes.Issue, execution.Issue),
    (answer_shapes.UserDependency, execution.UserDependency),
    (answer_shapes.ExpectedContext, execution.ExpectedContext),
    (answer_shapes.LoopView, execution.LoopView),
    (answer_shapes.DelegationView, execution.DelegationView),
    (answer_shapes.DelegatedBy, execution.DelegatedBy),
    (answer_shapes.LinkedRunView, execution.LinkedRunView),
    (answer_shapes.DelegateWith, execution.DelegateWith),
    (answer_shapes.ReferenceView, execution.ReferenceView),
    (answer_shapes.Pending, execution.Pending),
    (answer_shapes.SessionRef, execution.SessionRef),
    (answer_shapes.WorkflowRef, execution.WorkflowRef),
    (answer_shapes.Progress, execution.Progress),
    (answer_shapes.EffectivePreferences, execution.EffectivePreferences),
    (answer_shapes.NextCall, execution.NextCall),
    (answer_shapes.Blocked, execution.Blocked),
    (answer_shapes.Branch, execution.Branch),
    (answer_shapes.RecordedOutput, execution.RecordedOutput),
    (answer_shapes.RunCheckpoint, execution.RunCheckpoint),
    (answer_shapes.ExecutionJson, execution.ExecutionResult),
    (shapes.RecapEntry, execution.RecapEntry),
    (shapes.RecapGap, execution.RecapGap),
    (shapes.Recap, execution.Recap),
    (answer_shapes.NotesSession, sessions.NotesSession),
    (answer_shapes.SessionNextCall, sessions.SessionNextCall),
    (answer_shapes.SessionCheckpoint, sessions.SessionCheckpoint),
    (answer_shapes.SessionJson, sessions.SessionResult),
    (answer_shapes.OtherTip, sessions.OtherTip),
    (answer_shapes.ResumeCandidate, sessions.ResumeCandidate),
    (answer_shapes.ResumeQuery, sessions.ResumeQuery),
    (answer_shapes.ResumeJson, sessions.ResumeResult),
]


def wire_keys(model: type[BaseModel], *, required: bool) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items() if field.is_required() is required}


def shape_keys(shape: Any, *, required: bool) -> set[str]:
    # From the resolved hints: with postponed annotations, a TypedDict's own __required_keys__ cannot
    # see NotRequired (it is still a string when the class is made).
    hints = get_type_hints(shape, include_extras=True)
    return {key for key, hint in hints.items() if (get_origin(hint) is not NotRequired) is required}


@pytest.mark.parametrize(("shape", "model"), PAIRS, ids=[model.__name__ for _, model in PAIRS])
def test_each_shape_has_its_models_keys_required_exactly_when_the_model_requires_them(shape, model):
    assert shape_keys(shape, required=True) == wire_keys(model, required=True)
    assert shape_keys(shape, required=False) == wire_keys(model, required=False)


def test_a_key_too_many_or_one_required_that_may_be_left_out_is_told_apart():
    assert shape_keys(answer_shapes.Pending, required=True) != wire_keys(execution.Progress, required=True)
    assert shape_keys(answer_shapes.Progress, required=False) != wire_keys(execution.Progress, required=True)
