"""WORKRAIL_WORKFLOW_REPOS: every form of an entry parsed, every malformed one refused with its fix."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.support.processes import run_manage
from workrail_site.workflow_repos import display_url, hide_credentials, parse_workflow_repos

LIBRARY = "https://github.com/EtienneBBeaulac/workrail.git"


def test_workrail_s_library_in_one_entry():
    [repo] = parse_workflow_repos(f"{LIBRARY}#main:workflows")
    assert (repo.name, repo.url, repo.ref, repo.directory) == ("workrail", LIBRARY, "main", "workflows")
    assert repo.folder == f"workrail-{repo.key}" and len(repo.key) == 12


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("https://example.com/team/flows.git", ("flows", None, "")),
        ("https://example.com/team/flows.git#v1.2.0", ("flows", "v1.2.0", "")),
        ("https://example.com/team/flows#:lib/workflows/", ("flows", None, "lib/workflows")),
        ("git@github.com:team/Flows.git#release/2.0:workflows", ("flows", "release/2.0", "workflows")),
        ("ops=ssh://git@host.example/srv/flows.git", ("ops", None, "")),
        ("file:///srv/repos/flows.git#" + "a" * 40, ("flows", "a" * 40, "")),
    ],
)
def test_an_entry_gives_name_ref_and_directory(entry, expected):
    [repo] = parse_workflow_repos(entry)
    assert (repo.name, repo.ref, repo.directory) == expected
    [again] = parse_workflow_repos(repo.written)
    assert (again.name, again.url, again.ref, again.directory) == (repo.name, repo.url, repo.ref, repo.directory)


def test_several_entries_separated_by_spaces_commas_or_newlines_keep_their_order():
    repos = parse_workflow_repos(f"{LIBRARY}#main:workflows,  team=file:///srv/a.git\n file:///srv/b.git")
    assert [repo.name for repo in repos] == ["workrail", "team", "b"]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("-uhack/x.git", "starts with '-'"),
        ("ext::sh -c touch% /tmp/pwned", "not a repository URL WorkRail accepts"),
        ("/srv/repos/flows.git", "file:///abs/path"),
        ("ftp://example.com/flows.git", "not a repository URL WorkRail accepts"),
        ("https://example.com/flows.git#main#dev", "more than one '#'"),
        ("https://example.com/flows.git#ma..in", "is not a branch, tag or commit name"),
        ("https://example.com/flows.git#-main", "is not a branch, tag or commit name"),
        ("https://example.com/flows.git#main:../etc", "not a plain path inside the repository"),
        ("https://example.com/flows.git#main:/abs", "not a plain path inside the repository"),
        ("https://example.com/", "without a path"),
        ("BAD=https://example.com/flows.git", "not a valid repository name"),
        ("https://example.com/a/flows.git https://example.com/b/flows.git", "Name one of them"),
    ],
)
def test_a_malformed_entry_is_refused_naming_it_and_the_fix(value, fragment):
    with pytest.raises(ImproperlyConfigured) as raised:
        parse_workflow_repos(value)
    message = str(raised.value)
    assert message.startswith("WORKRAIL_WORKFLOW_REPOS:") and fragment in message


def test_credentials_never_reach_what_people_see():
    url = "https://oauth2:s3cret-token@git.example.com/team/flows.git?private_token=abc"
    [repo] = parse_workflow_repos(url)
    assert repo.display_url == "https://git.example.com/team/flows.git"
    assert display_url("ssh://git:pw@host.example/flows.git") == "ssh://host.example/flows.git"
    assert display_url("ssh://git@host.example/flows.git") == "ssh://git@host.example/flows.git"
    assert "s3cret" not in hide_credentials(repo.written)
    with pytest.raises(ImproperlyConfigured) as raised:
        parse_workflow_repos("https://user:s3cret@example.com/flows.git#bad..ref")
    assert "s3cret" not in str(raised.value)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # git's own words quoting the URL, query string included (issue 29)
        (
            "fatal: unable to access 'https://h.example/x.git?private_token=tok12345/': 403",
            "https://h.example/x.git?***",
        ),
        ("https://oauth2:tok12345@h.example/x.git#main:workflows", "https://***@h.example/x.git#main:workflows"),
        ("remote: bad access_token=tok12345 for you", "access_token=***"),
        ("remote: your token tok12345 expired", "your token *** expired"),  # the URL's own secret, anywhere
        ("git@github.com:team/flows.git#main", "git@github.com:team/flows.git#main"),  # no secret in it
    ],
)
def test_hide_credentials_hides_every_form_of_a_secret(text, kept):
    url = "https://oauth2:tok12345@h.example/x.git?private_token=tok12345"
    shown = hide_credentials(text, url)
    assert "tok12345" not in shown and kept in shown


@pytest.mark.subprocess
def test_a_malformed_setting_stops_the_program_at_start(tmp_path):
    result = run_manage(tmp_path, "check", WORKRAIL_WORKFLOW_REPOS="https://example.com/flows.git#main:../up")
    assert result.returncode == 2 and "configuration error" in result.stderr
    assert "WORKRAIL_WORKFLOW_REPOS: entry 1" in result.stderr and "without '..'" in result.stderr


@pytest.mark.parametrize(
    ("entry", "fixed"),
    [
        (
            "https://github.com/EtienneBBeaulac/workrail.git:workflows",
            "https://github.com/EtienneBBeaulac/workrail.git#:workflows",
        ),
        ("lib=https://github.com/a/b.git:main:workflows", "lib=https://github.com/a/b.git#main:workflows"),
        ("git@github.com:team/flows.git:workflows", "git@github.com:team/flows.git#:workflows"),
        ("https://tok@github.com/a/b.git:flows", "https://***@github.com/a/b.git#:flows"),
    ],
)
def test_a_directory_written_without_the_hash_is_answered_with_the_entry_rewritten(entry, fixed):
    with pytest.raises(ImproperlyConfigured) as raised:
        parse_workflow_repos(entry)
    assert f"without the '#' that introduces REF:DIR. Write it as '{fixed}'." in str(raised.value)
    assert parse_workflow_repos(fixed.replace("***@", "tok@"))  # the rewritten entry is accepted
