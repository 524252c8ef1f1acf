from django.contrib import admin
from django.urls import include, path

from workrail_site.api import api_urls

urlpatterns = [
    path("admin/", admin.site.urls),
    # The HTTP API (docs/api.md): ninja's URLs for `api`, with JSON errors for unknown paths and methods.
    path("api/v1/", api_urls()),
    path("", include("exports.urls")),
    path("", include("runs.dashboard.urls")),
]
