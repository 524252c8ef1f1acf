"""The documented code lists cannot drift from the code."""

from runs.contract.errors import ErrorCode, HeldIssue
from tests.support.paths import REPO
from workflows_app.diagnostics import Code


def test_every_error_and_diagnostic_code_is_documented():
    from workflows_app.engine.codes import IssueCode, WarningCode

    text = (REPO / "docs" / "errors.md").read_text()
    for code in [*ErrorCode, *Code, *IssueCode, *HeldIssue, *WarningCode]:
        assert f"| `{code.value}` |" in text, code


def test_the_readme_opens_with_the_client_configuration_then_the_two_commands():
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```", 1)[1].split("```", 1)[0]
    assert '"mcpServers"' in first_block and '"command": "uvx", "args": ["workrail-py", "mcp"]' in first_block
    assert "claude mcp add workrail -- uvx workrail-py mcp" in readme
    contributors = readme.split("```sh", 1)[1].split("```", 1)[0]
    assert "make run" in contributors and "make test" in contributors
    assert (REPO / "docs" / "dashboard.png").is_file() and "](docs/dashboard.png)" in readme


def test_the_readme_is_short_and_links_into_docs_that_exist():
    import re

    readme = (REPO / "README.md").read_text()
    assert len(readme.split()) < 600  # a two-minute read
    links = re.findall(r"\]\(((?:docs/)?[A-Za-z./-]+\.(?:md|png))\)", readme)
    assert links and all((REPO / link).is_file() for link in links), links
    assert (REPO / "LICENSE").is_file() and (REPO / "CHANGELOG.md").is_file()
