"""Every WORKRAIL_* variable the documentation names is one the settings accept, and the other way round."""

import json
import os
import re
import subprocess
import sys

import pytest

from tests.support.paths import REPO
from workrail_site.original_names import RENAMES

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

# A plausible, non-default value for each documented variable ({tmp} is a scratch directory).
PLAUSIBLE = {
    "WORKRAIL_HOME": "{tmp}/home",
    "WORKRAIL_WORKFLOW_PATHS": "{tmp}/more" + os.pathsep + "{tmp}/team.json",
    "WORKRAIL_WORKFLOW_REPOS": "https://github.com/EtienneBBeaulac/workrail.git#main:workflows team=file://{tmp}/flows.git",
    "WORKRAIL_PROJECT_DIR": "{tmp}",
    "WORKRAIL_PORT": "8899",
    "WORKRAIL_LOG_LEVEL": "DEBUG",
    "WORKRAIL_DEBUG": "false",
    "WORKRAIL_AUTONOMY": "full_auto_never_stop",
    "WORKRAIL_RISK_POLICY": "conservative",
    "WORKRAIL_ENABLE_CHECKPOINT": "false",
    "WORKRAIL_ENABLE_START_SESSION": "true",
    "WORKRAIL_ENABLE_RESUME_SESSION": "false",
    "WORKRAIL_RATE_LIMIT_BURST": "50",
    "WORKRAIL_RATE_LIMIT_PER_MINUTE": "300",
    "WORKRAIL_STALL_MINUTES": "45",
    "WORKRAIL_SUBSCRIPTION_POLL_MS": "250",
    "WORKRAIL_TOOL_TIMINGS_KEPT": "2000",
    "WORKRAIL_RETENTION_DAYS": "30",
    "WORKRAIL_BUNDLE_MAX_MB": "64",
    "WORKRAIL_REPORT_SECONDS": "45",
    "WORKRAIL_REPORT_PDF_MAX_MB": "2048",
    "WORKRAIL_MCP_ALLOWED_HOSTS": "workrail.example.com, workrail.internal",
    "WORKRAIL_MCP_ALLOWED_ORIGINS": "https://workrail.example.com",
    "WORKRAIL_MCP_FORWARDED_ALLOW_IPS": "127.0.0.1",
    "WORKRAIL_TEST_DATABASE_URL": "postgres://workrail:secret@localhost:5432/workrail_test",
}

READ_SETTINGS = (
    "import json, workrail_site.settings as s; "
    "print(json.dumps({'known': sorted(s.env.known), 'engine': s.DATABASES['default']['ENGINE']}))"
)


def documented_names() -> set[str]:
    """Every WORKRAIL_* name the documents give, but the TypeScript original's (docs/configuration.md lists
    those with what to write instead: the settings refuse them)."""
    found = {name.rstrip("_") for doc in DOCUMENTS for name in re.findall(r"WORKRAIL_[A-Z_]+", doc.read_text("utf-8"))}
    return found - RENAMES.keys()


def test_the_readme_documents_variables():
    assert {"WORKRAIL_HOME", "WORKRAIL_PORT", "WORKRAIL_TEST_DATABASE_URL"} <= documented_names()


@pytest.mark.subprocess
def test_settings_accept_every_documented_variable_and_read_only_documented_ones(tmp_path):
    documented = documented_names()
    assert documented <= PLAUSIBLE.keys(), f"add a plausible value to PLAUSIBLE for {documented - PLAUSIBLE.keys()}"
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WORKRAIL_") and k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    clean["HOME"] = str(tmp_path)
    clean.update({name: PLAUSIBLE[name].format(tmp=tmp_path) for name in documented})
    result = subprocess.run(
        [sys.executable, "-c", READ_SETTINGS], env=clean, cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    known = {name for name in seen["known"] if name.startswith("WORKRAIL_")}
    assert documented <= known
    assert known <= documented, f"settings read undocumented variables: {known - documented}"
    # WORKRAIL_TEST_DATABASE_URL is for the test suite only: it does not change the database `make run` uses.
    assert seen["engine"] == "workrail_site.sqlite_backend"  # Django's, creating the file 0600
