"""The shape rules of the code base, checked rather than remembered: every module of the package stays under
400 lines and every function under 60, except the functions listed in ``LONGER`` (each at most as long as it
is now, so the list only shrinks: a function split below the limit must leave it), and no stage module compares a
kind with a ``Kind`` member (what differs between kinds is declared by the kinds). Reads source files only, each
parsed once per session (the ``repo_sources`` fixture).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.sources import Sources

PACKAGE = Path(__file__).resolve().parents[2] / "reconciler"
MODULE_LIMIT = 400
FUNCTION_LIMIT = 60

# Functions over the limit today, with their length: a ceiling, not an allowance to grow.
LONGER = {
    "apply/batch.py:send_batched": 80,
    "commands/apply.py:apply": 75,
    "kafka/read.py:read_state": 80,
    "manifests/plainyaml.py:_read": 77,  # the fast YAML path's event loop: one function keeps its locals hot
}


@pytest.fixture(scope="module")
def modules(repo_sources: Sources) -> list[Path]:
    return repo_sources.python_files("reconciler")


@pytest.fixture(scope="module")
def function_lengths(repo_sources: Sources, modules: list[Path]) -> dict[str, int]:
    lengths: dict[str, int] = {}
    for path in modules:
        for node in ast.walk(repo_sources.tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                key = f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
                lengths[key] = max(lengths.get(key, 0), node.end_lineno - node.lineno + 1)
    return lengths


def test_every_module_is_under_the_line_limit(repo_sources: Sources, modules: list[Path]) -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): n
        for path in modules
        if (n := len(repo_sources.text(path).splitlines())) > MODULE_LIMIT
    }
    assert long == {}, f"split these modules (over {MODULE_LIMIT} lines): {long}"


def test_no_function_grows_past_the_limit(function_lengths: dict[str, int]) -> None:
    over = {
        name: n for name, n in function_lengths.items() if n > FUNCTION_LIMIT and n > LONGER.get(name, FUNCTION_LIMIT)
    }
    assert over == {}, (
        f"split these functions (over {FUNCTION_LIMIT} lines, or longer than their LONGER ceiling): {over}"
    )


def test_the_list_of_longer_functions_only_names_functions_still_over_the_limit(
    function_lengths: dict[str, int],
) -> None:
    stale = sorted(name for name in LONGER if function_lengths.get(name, 0) <= FUNCTION_LIMIT)
    assert stale == [], f"these are split or gone: remove them from LONGER: {stale}"


def test_every_module_opens_with_a_docstring(repo_sources: Sources, modules: list[Path]) -> None:
    missing = [
        path.relative_to(PACKAGE).as_posix()
        for path in modules
        if path.stat().st_size and ast.get_docstring(repo_sources.tree(path)) is None
    ]
    assert missing == []


# The places that may name one kind against another: the kinds' own declarations and the Kind enumeration.
KIND_PLACES = ("kinds/", "model/kinds.py")


def _kind_comparisons(tree: ast.Module) -> list[str]:
    """Each ``==``/``!=``/``is``/``is not`` comparison in ``tree`` with a ``Kind.<MEMBER>`` on one side."""

    def names_a_kind(node: ast.expr) -> bool:
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Kind"

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, sides[:-1], sides[1:], strict=True):
            if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) and (names_a_kind(left) or names_a_kind(right)):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_stage_code_never_branches_on_which_kind_it_holds(repo_sources: Sources, modules: list[Path]) -> None:
    """What differs between kinds is declared by the kind (``reconciler/kinds/``, the entity kinds' records in
    ``model/entities.py``) and read by the stages; a stage comparing a kind with ``Kind.X`` is a decision a new kind
    would silently miss."""
    found = {
        rel: hits
        for path in modules
        if not (rel := path.relative_to(PACKAGE).as_posix()).startswith(KIND_PLACES)
        and (hits := _kind_comparisons(repo_sources.tree(path)))
    }
    assert found == {}, f"move these per-kind decisions into the kinds' declarations: {found}"


def test_the_kind_comparison_check_finds_each_form() -> None:
    tree = ast.parse(
        "a = kind == Kind.TOPIC\nb = Kind.ACL != c.kind\nd = x.kind is Kind.QUOTA\ne = k is not Kind.SCRAM_USER\n"
        "f = kind in (Kind.TOPIC,)\ng = kind == other\n"
    )
    assert [hit.split(":")[0] for hit in _kind_comparisons(tree)] == ["1", "2", "3", "4"]
