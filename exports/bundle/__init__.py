"""Session bundles: one self-describing JSON file per session that another WorkRail store can import
and carry on from (docs/sharing.md). `export.py` writes one, `reading.py` verifies one without the
database, `importing.py` applies a verified one in a single transaction."""
