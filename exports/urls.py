"""Dashboard routes for sharing a session: bundle, Markdown and PDF downloads, and the import form."""

from django.urls import URLPattern, path

from exports import views

app_name = "exports"

urlpatterns: list[URLPattern] = [
    # `?run=RUN_ID` for the report of one of the session's runs.
    path("sessions/<str:session_id>/report.md", views.session_report_md, name="session_report_md"),
    path("sessions/<str:session_id>/report.pdf", views.session_report_pdf, name="session_report_pdf"),
]
