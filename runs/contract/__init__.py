"""The typed shapes of WorkRail's boundary: what the tools accept and return, and the error body.

Each shape is one pydantic model, defined once. The MCP tools publish JSON Schemas generated from
these models, parse their arguments with them and hand the services snake_case objects; the HTTP
API uses the same models. Wire names are camelCase (the aliases); Python names are snake_case.

Importing this package builds every model (tens of milliseconds), so the MCP server imports it on
first use, not on the path to answering `initialize`.
"""
