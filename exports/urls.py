"""Dashboard routes for sharing a session: bundle, Markdown and PDF downloads, and the import form."""

from django.urls import URLPattern, path

from exports import bundle_views, views

app_name = "exports"

urlpatterns: list[URLPattern] = [
    path("sessions/import", bundle_views.import_bundle, name="import_bundle"),
    path("sessions/<str:session_id>/bundle.json", bundle_views.session_bundle, name="session_bundle"),
    # `?run=RUN_ID` for the report of one of the session's runs.
    path("sessions/<str:session_id>/report.md", views.session_report_md, name="session_report_md"),
    path("sessions/<str:session_id>/report.pdf", views.session_report_pdf, name="session_report_pdf"),
]
