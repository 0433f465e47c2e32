"""The examples in the engine's docstrings are tested, so the documentation cannot drift."""

import doctest

import hub.games.camelup


def test_package_docstring_examples_run():
    result = doctest.testmod(hub.games.camelup, raise_on_error=False)
    assert result.attempted >= 4 and result.failed == 0
