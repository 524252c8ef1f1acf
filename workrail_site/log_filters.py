"""Logging filters for settings.LOGGING."""

from __future__ import annotations

import logging


class OneLine(logging.Filter):
    """Drops the traceback of an expected refusal (a foreign Host header, a bad CSRF token): the message
    already says what happened, and a page of stack per probe would bury real problems."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True
