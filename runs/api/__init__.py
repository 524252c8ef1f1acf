"""The HTTP API (/api/v1/); see workrail_site/api.py and docs/api.md."""
