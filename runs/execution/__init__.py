"""The contract's use cases, one module each: list and inspect (catalog), start, advance
(continue_workflow with an ackToken), rehydrate (without one), replay, checkpoint, resume and the
developer's actions on a session. They stand on three building blocks: loading what a token names,
recording through the journal, and the answer for a node. The MCP tools, the HTTP API and the
dashboard call these; none of them writes to the store on its own.
"""
