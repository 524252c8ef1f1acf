from __future__ import annotations

import pytest

PDF_PARAMETERS = ("report_format", "suffix")  # the format a parametrized test asks for


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test parametrized with a PDF report lays one out (WeasyPrint, in a child process): marked `pdf`,
    which `make test-fast` leaves out; the Markdown case of the same test stays in. Tests that make a PDF
    otherwise are marked where they are written."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(params.get(name) == "pdf" for name in PDF_PARAMETERS):
            item.add_marker(pytest.mark.pdf)
