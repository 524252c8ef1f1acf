"""Who is signed in, said in the main header of every dashboard page, not on the admin's alone (friction26b 19,
26a 17): "Signed in as bob · Sign out", the log-out a POST with its CSRF token that comes back to the page; on a
phone "More"'s first line, its one place there. Nobody signed in: no such line."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def header(html: str) -> str:
    return html.split('<header class="topbar">', 1)[1].split("</header>", 1)[0]


@pytest.mark.parametrize("path", ["/sessions/", "/workflows/", "/connect/", "/timings/"])
def test_a_signed_in_person_is_named_in_every_pages_header(client, django_user_model, path):
    client.force_login(django_user_model.objects.create_user("bob", password="pw", is_staff=True))
    bar = header(client.get(path).content.decode())
    line = bar.split('id="account-line"', 1)[1].split("</form>", 1)[0]
    assert 'method="post" action="/admin/logout/"' in bar
    assert 'name="csrfmiddlewaretoken"' in line
    assert f'<input type="hidden" name="next" value="{path}">' in line
    assert "Signed in as <strong>bob</strong> · " in line and ">Sign out</button>" in line
    # The phone's "More" opens with the same: who, and the log-out back to the page, before the pages.
    more = bar.split('<li class="nav-more">', 1)[1]
    assert "Signed in as bob" in more and ">Sign out</button>" in more
    assert more.index("Signed in as bob") < more.index(">Sign out</button>") < more.index(">Tool timings<")
    assert f'name="next" value="{path}"' in more
    # No letter chip in the phone's bar (friction63b 11: cryptic, and "More" said it again): the account is said
    # by the line and by "More", each shown at one size, and by nothing else.
    assert "account-avatar" not in bar and "<svg" not in bar and bar.count("Signed in as") == 2


def test_nobody_signed_in_no_account_line(client):
    bar = header(client.get("/sessions/").content.decode())
    assert "account-line" not in bar and "Signed in" not in bar and "Sign out" not in bar
    assert "account-avatar" not in bar


def test_log_out_from_the_header_comes_back_to_the_page(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("bob", password="pw", is_staff=True))
    answer = client.post("/admin/logout/", {"next": "/workflows/"})
    assert answer.status_code == 302 and answer["Location"] == "/workflows/"
    assert "Signed in" not in client.get("/workflows/").content.decode()


def test_the_sign_in_page_says_sign_in_as_the_header_says_sign_out(client):
    # friction61b 15: "Sign in with an admin account" above a "Log in" button, "Log out" in the header: one verb pair.
    page = client.get("/admin/login/").content.decode()
    assert 'type="submit" value="Sign in"' in page and "<title>Sign in | " in page
    assert "Log in" not in page and "log in" not in page
