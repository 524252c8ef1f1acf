"""Dashboard routes for sharing a session: bundle, Markdown and PDF downloads, and the import form."""

from django.urls import path

app_name = "exports"

urlpatterns: list = []
