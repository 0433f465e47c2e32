"""Shared fixtures. Each family lives in its own module under tests/fixtures/."""

pytest_plugins = [
    "tests.fixtures.broker",
    "tests.fixtures.browser",
    "tests.fixtures.pins",
]
