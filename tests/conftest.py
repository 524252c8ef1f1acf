"""The fixtures every folder may use come from the plugins in tests/plugins/ (by topic); a folder's own
fixtures are in its conftest.py. Plain helpers are in tests/support/."""

pytest_plugins = [
    "tests.plugins.catalog",
    "tests.plugins.sample_session",
    "tests.plugins.http_clients",
    "tests.plugins.git_repos",
    "tests.plugins.mcp_server",
    "tests.plugins.hypothesis_seed",
    "tests.plugins.store_template",
]
