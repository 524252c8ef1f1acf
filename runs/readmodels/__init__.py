"""What people and agents read about recorded work: sessions and runs (overview, run_view), which
branch each note, artifact, finding, synthesis and status belongs to (branches), recaps, the MCP
resources, the artifact tables, the graph layout and the tool timings. The dashboard, the HTTP API,
the MCP resources and the reports all call these, so they cannot tell different stories.
"""
