import pytest
from django.utils.html import strip_tags

from tests.support.workflow_files import workflow_doc, write_json

pytestmark = pytest.mark.django_db


def test_the_workflows_page_lists_workflows_and_warnings(client, service_catalog):
    (service_catalog["extra"] / "broken.json").write_text("{")
    write_json(service_catalog["extra"] / "ok.json", workflow_doc("team.visible", name="Visible <b>one</b>"))
    response = client.get("/workflows/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "team.visible" in html and "wr.evidence_first_bug_fix" in html
    assert "Visible &lt;b&gt;one&lt;/b&gt;" in html  # names are escaped, never raw HTML
    assert "INVALID_JSON" in html


def test_home_without_sessions_and_the_connect_page_say_how_to_connect(client, service_catalog):
    for url in ("/", "/connect/"):
        response = client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
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


def test_home_gives_the_agent_the_same_store_and_hides_the_database_password(client, settings, tmp_path):
    settings.WORKRAIL_HOME = tmp_path / "elsewhere"
    settings.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local/workrail"
    html = client.get("/connect/").content.decode()
    text = strip_tags(html)  # the commands carry line spans and <wbr> break points for phones
    assert f"claude mcp add workrail -e WORKRAIL_HOME={tmp_path / 'elsewhere'} -e " in text
    assert f"&quot;WORKRAIL_HOME&quot;: &quot;{tmp_path / 'elsewhere'}&quot;" in text
    assert "postgres://workrail:********@db.local/workrail" in text
    assert "s3cret" not in html
    assert "The password is hidden here" in html
