"""The quick loop draws a fifth of each fuzz test's examples; the whole suite draws them all."""

from tests.support import fuzz_budget


def test_the_whole_suite_draws_every_example(monkeypatch):
    monkeypatch.delenv("WR_TEST_FUZZ", raising=False)
    assert fuzz_budget.examples(120) == 120
    assert fuzz_budget.stride() == 1


def test_the_quick_loop_draws_a_fifth_and_never_fewer_than_five(monkeypatch):
    monkeypatch.setenv("WR_TEST_FUZZ", "quick")
    assert fuzz_budget.examples(120) == 24
    assert fuzz_budget.examples(12) == 5
    assert fuzz_budget.stride() == 5


def test_make_test_fast_asks_for_the_quick_loop():
    from pathlib import Path

    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    recipe = makefile.split("\ntest-fast:", 1)[1].split("\n\n", 1)[0]
    assert "WR_TEST_FUZZ=quick" in recipe
