from django.contrib import admin
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from runs.api.errors import error_response, request_too_large, unreadable_request
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
    """Django answers a request it refuses to read (SuspiciousOperation) with this view, as an error with a
    code: the API's JSON body under /api/, the dashboard's error page elsewhere. A body over
    DATA_UPLOAD_MAX_MEMORY_SIZE (a dashboard form, an API body) is 413; a Host header the site does not
    serve, or any other refusal, is 400."""
    error = request_too_large() if isinstance(exception, RequestDataTooBig) else unreadable_request(request, exception)
    status = None if isinstance(exception, RequestDataTooBig) else 400
    if request.path.startswith("/api/"):
        return error_response(error, status=status)
    return error_page(request, error, status=status)


handler400 = bad_request
