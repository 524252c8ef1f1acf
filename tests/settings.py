"""Settings for the test run: the real settings, but never the developer's own WORKRAIL_HOME or
workflow directories."""

import atexit
import os
import shutil
import tempfile

_test_database = os.environ.get("WORKRAIL_TEST_DATABASE_URL")  # run the suite on PostgreSQL, say
for _name in [name for name in os.environ if name.startswith("WORKRAIL_") or name == "DATABASE_URL"]:
    del os.environ[_name]
if _test_database:
    os.environ["DATABASE_URL"] = _test_database
    # Put back for the pytest-xdist workers: they inherit this process's environment, and load this file again.
    os.environ["WORKRAIL_TEST_DATABASE_URL"] = _test_database
os.environ["WORKRAIL_HOME"] = tempfile.mkdtemp(prefix="workrail-test-home-")
os.environ["WORKRAIL_PROJECT_DIR"] = tempfile.mkdtemp(prefix="workrail-test-project-")
# Each test process (pytest, every xdist worker) made its own two: gone with it, not left in /tmp by the hundred.
for _made in (os.environ["WORKRAIL_HOME"], os.environ["WORKRAIL_PROJECT_DIR"]):
    atexit.register(shutil.rmtree, _made, ignore_errors=True)

from workrail_site.settings import *  # noqa: E402, F403

# Tests create users and log in often; the real hasher is slow on purpose. Never used outside tests.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The test database lives in memory: Django's own SQLite backend, which pytest-django knows how to
# name per xdist worker (ours only adds the 0600 file creation, tested through manage.py).
if DATABASES["default"]["ENGINE"] == "workrail_site.sqlite_backend":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "django.db.backends.sqlite3"  # noqa: F405

# Outermost: counts the requests being answered, so a browser test's teardown can wait for the live server to
# finish them before the database is flushed (tests/support/in_flight.py).
MIDDLEWARE = ["tests.support.in_flight.InFlight", *MIDDLEWARE]  # noqa: F405
