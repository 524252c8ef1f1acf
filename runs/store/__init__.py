"""The durable core: what is recorded and how it is kept.

The event log is the source of truth (events, the journal that appends them, the projections built
from them, rebuild); around it, the pinned workflow snapshots, the compiled hot-path statements,
tokens and their keys, rate limits, retention, staged imports, API tokens and tool-call timings.
Nothing here knows about MCP, HTTP or pages; everything above may use it.
"""
