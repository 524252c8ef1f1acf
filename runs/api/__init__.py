"""The HTTP API (/api/v1/); see runs/api/app.py and docs/api.md."""
