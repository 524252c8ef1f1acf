"""pytest plugins: the fixtures tests in several folders use, by topic. The root conftest.py registers
them (`pytest_plugins`); a fixture used by one folder only lives in that folder's conftest.py."""
