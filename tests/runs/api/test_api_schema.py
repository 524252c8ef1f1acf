"""The HTTP API against its own OpenAPI document, with schemathesis, in-process (WSGI) on a seeded store.

For every operation, generated requests (valid ones, ones aimed at the real ids of the seeded
session, and invalid ones, which must be refused with a 4xx) never get a 5xx, every answer matches
the documented status codes and body schema, and the same requests without credentials are refused
with 401. Bounded, so it is quick; new cases each run, from the run's seed (tests/plugins/hypothesis_seed.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from runs.models import Node
from runs.store import api_tokens
from tests.support.fuzz_budget import examples
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = examples(25)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def in_process() -> Iterator[Any]:
    """Django's WSGI application, without the per-request connection clean-up: the requests run inside the
    test's transaction on this thread (Django's own test client does the same)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def seeded(service_catalog) -> dict[str, str]:
    """Real values for every path parameter."""
    built = two_runs_one_forked_twice()
    node = Node.objects.filter(run__public_id=built.review_run).order_by("-depth").values_list("public_id", flat=True)
    return {
        "sessionId": built.session_id,
        "runId": built.review_run,
        "nodeId": str(node[0]),
        "workflowId": "wr.risk_scaled_mr_review",
    }


def fuzz(operation: Any, real_ids: dict[str, str], auth: dict[str, str]) -> None:
    """Runs the checks on one operation's generated cases."""
    strategies = [operation.as_strategy(), operation.as_strategy(GenerationMode.NEGATIVE)]
    if real_ids:
        strategies.append(operation.as_strategy(path_parameters=real_ids))
    is_open = operation.path == "/api/v1/health"
    # A query string carries text only: a "negative" number, boolean, null or repeated value schemathesis
    # writes into it arrives as a string the schema allows (`tags=0.0`, `query=a&query=b`), so refusing it
    # would be wrong. Negative path parameters and bodies are still checked on every operation.
    negative = [] if any(p.location == "query" for p in operation.iter_parameters()) else [negative_data_rejection]

    @given(case=st.one_of(strategies))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(headers=auth, checks=[*CHECKS, ignored_auth, *negative])
        refused = case.call()  # the same request without credentials
        if is_open:
            assert refused.status_code == 200
        else:
            assert refused.status_code == 401, (case.method, case.formatted_path, refused.text)
            assert refused.json()["error"]["code"] == "UNAUTHENTICATED"
            case.validate_response(refused, checks=CHECKS)

    check()


def test_every_operation_matches_the_openapi_document(in_process, seeded):
    token = api_tokens.create("schemathesis")[1]
    auth = {"Authorization": f"Bearer {token}"}
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", in_process, headers=auth)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {f"{o.method.upper()} {o.path.removeprefix('/api/v1')}" for o in operations} == {
        "GET /health",
        "GET /sessions",
        "GET /sessions/{sessionId}",
        "GET /sessions/{sessionId}/events",
        "GET /sessions/{sessionId}/report",
        "GET /sessions/{sessionId}/bundle",
        "POST /bundles",
        "POST /sessions/{sessionId}/preferences",
        "GET /runs/{runId}",
        "GET /runs/{runId}/graph",
        "POST /runs/{runId}/cancel",
        "GET /nodes/{nodeId}",
        "POST /nodes/{nodeId}/fork",
        "GET /workflows",
        "GET /workflows/{workflowId}",
        "GET /timings",
    }
    for operation in operations:
        fuzz(operation, {p.name: seeded[p.name] for p in operation.path_parameters}, auth)
