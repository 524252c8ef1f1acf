"""Whether a run's newest node waits for the user: its pending step asks for the user's confirmation
(`requireConfirmation`, a bool or a condition on the run's context, as the engine renders the step) and
the node's autonomy is guided. In the other modes the agent confirms its own steps (runs/execution/
modes.py, shape_pending), so nobody is waited for.

The projector keeps it on the run and the session (Run.waits_for_user, Session.waiting_for_user): the
dashboard never calls a run that waits for the user "stalled", and says whose move it is.
"""

from __future__ import annotations

from runs.store.pinned import compiled_workflow, steps_by_id
from workflows_app import engine
from workflows_app.engine.model import EngineState

# The autonomy in which confirmations are the user's (runs/contract/inputs.py, Autonomy; the default).
GUIDED = "guided"


def waits_for_user(
    pinned_id: str, pending_step_id: str | None, state: EngineState, preferences: dict[str, str]
) -> bool:
    if not pending_step_id or preferences.get("autonomy", GUIDED) != GUIDED:
        return False
    step = steps_by_id(pinned_id).get(pending_step_id)
    if step is None or not step.get("requireConfirmation"):
        return False  # no rule: nothing to render (the usual case, kept cheap on every advance)
    pending = engine.pending_view(compiled_workflow(pinned_id), state)
    return bool(pending and pending.get("requireConfirmation"))
