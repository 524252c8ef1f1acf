import pytest

from tests.helpers import workflow_doc, write_json

pytestmark = pytest.mark.django_db


def test_home_lists_workflows_warnings_and_how_to_connect(client, service_catalog):
    (service_catalog["extra"] / "broken.json").write_text("{")
    write_json(service_catalog["extra"] / "ok.json", workflow_doc("team.visible", name="Visible <b>one</b>"))
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "team.visible" in html and "wr.bug_investigation" in html
    assert "Visible &lt;b&gt;one&lt;/b&gt;" in html  # names are escaped, never raw HTML
    assert "INVALID_JSON" in html
    assert "claude mcp add workrail" in html
    assert "manage.py" in html and "mcp" in html


def test_a_foreign_host_header_is_refused(client):
    # DNS rebinding: a page served under evil.example that resolves to 127.0.0.1 still sends its own Host.
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400


def test_admin_requires_a_login(client):
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
