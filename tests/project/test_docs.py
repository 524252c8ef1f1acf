"""The documented code lists cannot drift from the code."""

from runs.contract.errors import ErrorCode, HeldIssue
from tests.support.paths import REPO
from workflows_app.diagnostics import Code


def test_every_error_and_diagnostic_code_is_documented():
    from workflows_app.engine.codes import IssueCode, WarningCode

    text = (REPO / "docs" / "errors.md").read_text()
    for code in [*ErrorCode, *Code, *IssueCode, *HeldIssue, *WarningCode]:
        assert f"| `{code.value}` |" in text, code


def test_the_readme_opens_with_the_two_commands():
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```sh", 1)[1].split("```", 1)[0]
    assert "make run" in first_block
    assert "make test" in first_block
    assert "claude mcp add workrail" in readme
    assert '"mcpServers"' in readme
