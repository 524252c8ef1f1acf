from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from runs.connect import connection_instructions
from runs.services import catalog


def home(request: HttpRequest) -> HttpResponse:
    listing = catalog.list_workflows()
    return render(request, "dashboard/home.html", {"listing": listing, "connect": connection_instructions()})
