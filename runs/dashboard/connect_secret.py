"""The connect commands with DATABASE_URL's password in them, for the one person who may have it.

The connect page shows the password as HIDDEN_PASSWORD: any local user can open the page, and its HTML
may end up in a screenshot or a browser cache. Copied that way, the command fails. So the page offers the
working lines on request, never in its HTML: a POST (so Django's CSRF check applies and no cross-site page
or prefetch can fetch it) answered only to a signed-in staff user whose request comes from this machine
(the dashboard binds to loopback; a proxy or `runserver 0.0.0.0` in front of it would not count).
"""

from __future__ import annotations

import ipaddress

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from runs.contract.errors import ErrorCode, WorkRailError
from runs.dashboard.connect import connection_instructions
from runs.dashboard.errors import error_json

# What the page's buttons may ask for: the two copyable texts of ConnectionInstructions.
TEXTS = ("claude_code", "json_config")


def may_see_password(request: HttpRequest) -> bool:
    """A signed-in, active staff user, on a request from a loopback address."""
    user = request.user
    if not (user.is_authenticated and user.is_active and user.is_staff):
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


@never_cache
@require_POST
def connect_with_password(request: HttpRequest) -> JsonResponse:
    """`{"text": ...}`: the Claude Code command or the JSON config (POST field `text`) with the password
    in; for anyone else, or a text the page does not show, the error body every door sends (a code and
    what to do next)."""
    if not may_see_password(request):
        return error_json(
            WorkRailError(
                ErrorCode.PASSWORD_NOT_SHOWN,
                "Only a signed-in staff user on this machine can copy the password.",
                "Sign in to the admin from this machine, or copy the lines from the terminal where the dashboard"
                " started (`make run`, `manage.py dashboard` and `workrail-py dashboard` print them).",
            )
        )
    which = request.POST.get("text", "")
    if which not in TEXTS:
        return error_json(
            WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"No text {which[:100]!r} here.",
                f"Ask for one of {', '.join(TEXTS)} in the POST field `text`.",
                details={"pointer": "/text", "allowed": list(TEXTS)},
            )
        )
    return JsonResponse({"text": getattr(connection_instructions(reveal_password=True), which)})
