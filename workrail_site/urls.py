from django.contrib import admin
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views import defaults

from runs.api.errors import error_response, request_too_large
from runs.dashboard.errors import error_page
from workrail_site.api import api_urls

urlpatterns = [
    path("admin/", admin.site.urls),
    # The HTTP API (docs/api.md): ninja's URLs for `api`, with JSON errors for unknown paths and methods.
    path("api/v1/", api_urls()),
    path("", include("exports.urls")),
    path("", include("runs.dashboard.urls")),
]


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django answers a request it refuses to read (SuspiciousOperation) with this view. A body over
    DATA_UPLOAD_MAX_MEMORY_SIZE (a dashboard form, an API body) is 413 with the error it deserves: the
    API's JSON body under /api/, the dashboard's error page elsewhere; anything else stays a plain 400."""
    if isinstance(exception, RequestDataTooBig):
        if request.path.startswith("/api/"):
            return error_response(request_too_large())
        return error_page(request, request_too_large())
    return defaults.bad_request(request, exception or SuspiciousOperation())


handler400 = bad_request
