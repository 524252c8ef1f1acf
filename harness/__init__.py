"""Drives WorkRail from outside, as agents and users do, for the tests and the benchmarks alike.

The end-to-end tests (tests/e2e) run these in a bounded form and bench/ in a long one; neither imports
the other. Here: the environment and command line of a `manage.py` subprocess (processes.py), a raw
JSON-RPC client on a `manage.py mcp` process (stdio.py), the crash and load campaigns (crash.py,
load.py) and a store they share (stores.py), a picture of every projection row (projections.py), and
what a plausible agent or a hostile one writes (answers.py, workflows.py).
"""
