"""Plain helpers the tests share (pytest fixtures are in tests/plugins/ and the conftest files):

- paths.py: the repository, the fixture workflows and the snapshots;
- corpus.py: WorkRail's workflow corpus, and skipping when it is absent;
- workflow_files.py: a small workflow document, and writing JSON files;
- mcp_calls.py: the tools called as the MCP server calls them, and acknowledging a step;
- checks.py: the code of a refused call, an answer's canonical text, a gap-free event log;
- sample_session.py: a session worth looking at (two runs, forks, artifacts, hostile notes);
- fixture_workflows.py: our fixture workflows, their start contexts and expected paths;
- processes.py: `manage.py` subprocesses (commands, the real dashboard) and /proc checks.
"""
