import pytest
from django.test import Client
from django.utils.html import strip_tags

from runs.contract.errors import ErrorCode, ErrorResult
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
    # Signed out, the masked lines are a folded preview under step 2, after the way to working ones (step 1):
    # no "copy with the password" button.
    assert "Preview (password masked)" in text
    assert text.index("Sign in to copy working commands") < text.index("Preview (password masked)")
    assert "with-password" not in html
    assert "/admin/login/?next=/connect/" in html


def connect_steps(html: str) -> list[str]:
    """The first three words of each numbered step of the connect instructions."""
    steps = html.split('id="connect-steps">')[1].split("</ol>")[0].split("<li")[1:]
    return [" ".join(strip_tags("<li" + step).split()[:3]) for step in steps]


def _staff(django_user_model):
    return django_user_model.objects.create_user("ops", password="pw-for-tests", is_staff=True)


@pytest.fixture
def postgres_url(settings, tmp_path):
    settings.WORKRAIL_HOME = tmp_path / "elsewhere"
    settings.DATABASE_URL_SECRET = "postgres://workrail:s3cret@db.local/workrail"


@pytest.mark.usefixtures("postgres_url")
def test_a_staff_user_on_this_machine_copies_the_commands_with_the_password(client, django_user_model):
    client.force_login(_staff(django_user_model))
    html = client.get("/connect/").content.decode()
    assert "s3cret" not in html  # still never in the page itself
    assert 'data-copy-with-password="claude_code"' in html and "the copy buttons put it back" in html
    # Signed in, asking the agent for the workflows is a numbered step too, not grey small print (friction22a B12).
    assert connect_steps(html) == ["Copy the command", "Ask the agent"]
    for which in ("claude_code", "json_config"):
        response = client.post("/connect/with-password", {"text": which})
        assert response.status_code == 200
        assert "no-cache" in response["Cache-Control"]
        assert "workrail:s3cret@db.local" in response.json()["text"]
    assert (
        "-e DATABASE_URL=postgres://workrail:s3cret@db.local/workrail"
        in client.post("/connect/with-password", {"text": "claude_code"}).json()["text"]
    )
    unknown = client.post("/connect/with-password", {"text": "secret_key"})
    assert unknown.status_code == 400
    body = ErrorResult.model_validate(unknown.json())  # the error body of every other door
    assert body.error.code == ErrorCode.INVALID_INPUT and "claude_code" in body.error.suggestion


@pytest.mark.usefixtures("postgres_url")
def test_nobody_else_gets_the_password(client, django_user_model):
    ask = {"text": "claude_code"}
    assert client.post("/connect/with-password", ask).status_code == 403  # not signed in
    assert client.get("/connect/with-password", ask).status_code == 405  # never by a link or a prefetch
    client.force_login(django_user_model.objects.create_user("someone", password="pw-for-tests"))
    assert client.post("/connect/with-password", ask).status_code == 403  # signed in, not staff
    client.force_login(_staff(django_user_model))
    refused = client.post("/connect/with-password", ask, REMOTE_ADDR="192.0.2.7")  # staff, from elsewhere
    assert refused.status_code == 403
    error = ErrorResult.model_validate(refused.json()).error  # {"error": {...}}, as the API and MCP answer
    assert error.code == ErrorCode.PASSWORD_NOT_SHOWN and error.retryable is False and "make run" in error.suggestion
    assert "s3cret" not in refused.content.decode()
    elsewhere = client.get("/connect/", REMOTE_ADDR="192.0.2.7").content.decode()
    assert "with-password" not in elsewhere
    # No copy of lines that would not work (friction12 11): signing in again would not help a staff user on
    # another machine, so the reason stands in place of each button...
    assert "copy-button" not in elsewhere and "Sign in to copy" not in elsewhere
    assert elsewhere.count("Not copied here: the password is copied only on the machine that runs") == 2
    # ...and signed out, numbered steps (friction22a B12): 1 sign in (the button first, how to get an account in
    # one line), 2 copy the command, its masked lines folded under a preview, 3 ask the agent for the workflows.
    client.logout()
    signed_out = client.get("/connect/").content.decode()
    assert "copy-button" not in signed_out
    sign_in = '<a class="button primary sign-in-to-copy" href="/admin/login/?next=/connect/">Sign in to copy working'
    assert signed_out.count("sign-in-to-copy") == 1 and sign_in in signed_out
    assert connect_steps(signed_out) == ["Sign in to", "Copy the command", "Ask the agent"]
    # What the password protects is said where it is asked for (friction24a 21).
    assert "The commands hold your database's password, so they are shown to admins." in signed_out
    # Where to run the command, and where the working lines are printed whichever way the dashboard was started
    # (friction60b 11, 60a 17: "manage.py createsuperuser" said nowhere to run it; "the terminal that ran make run").
    assert (
        "No admin account yet? Make one: run <code>python manage.py createsuperuser</code> in the project folder."
    ) in signed_out
    assert (
        "the terminal where the dashboard started: <code>make run</code>, <code>manage.py dashboard</code> and"
        " <code>workrail-py dashboard</code> print them there."
    ) in signed_out
    assert "that ran <code>make run</code>" not in signed_out
    assert "move the database address into <code>database_url</code>" in signed_out
    preview = signed_out.index("<summary>Preview (password masked)</summary>")
    assert signed_out.index(sign_in) < preview < signed_out.index('id="connect-claude"')
    assert signed_out.count('class="masked"') == 2 and 'class="copy-row"' not in signed_out  # no empty rows
    assert "Preview (password masked)" not in elsewhere  # a staff user elsewhere has the reason in place of each button


@pytest.mark.usefixtures("postgres_url")
def test_the_password_copy_needs_the_pages_csrf_token(django_user_model):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(_staff(django_user_model))
    assert browser.post("/connect/with-password", {"text": "claude_code"}).status_code == 403  # a cross-site form
    browser.get("/connect/")  # sets the CSRF cookie, as the page does
    token = browser.cookies["csrftoken"].value
    answer = browser.post("/connect/with-password", {"text": "claude_code", "csrfmiddlewaretoken": token})
    assert answer.status_code == 200 and "s3cret" in answer.json()["text"]
