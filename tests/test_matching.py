from __future__ import annotations

import pytest

from pytest_planmode.matching import mismatches


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ({"a": 1}, {"a": 1, "extra": True}),
        ({"a": {"b": [1, 2]}}, {"a": {"b": [1, 2], "c": 0}}),
        ({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}]}),
        ({"n": 1}, {"n": 1.0}),
        ({"v": None}, {"v": None}),
        ({}, {"anything": 1}),
        ({"a": {"$unordered": ["x", "y"]}}, {"a": ["y", "x"]}),
        ({"a": {"$unordered": [{"n": 1}, {"n": 2}]}}, {"a": [{"n": 2, "k": 0}, {"n": 1}]}),
        ({"a": {"$unordered": ["x", "x", "y"]}}, {"a": ["x", "y", "x"]}),
        ({"w": [{"$anyText": True}]}, {"w": ["Using the legacy file"]}),
        ({"w": {"$unordered": ["b", {"$anyText": True}]}}, {"w": ["a", "b"]}),
    ],
)
def test_matches(expected: object, actual: object) -> None:
    assert mismatches(expected, actual) == []


@pytest.mark.parametrize(
    ("expected", "actual", "message"),
    [
        ({"a": 1}, {}, "output.a: missing (expected 1)"),
        ({"a": True}, {"a": 1}, "output.a: expected true, got 1"),
        ({"a": 1}, {"a": True}, "output.a: expected 1, got true"),
        ({"a": None}, {"a": "x"}, 'output.a: expected null, got "x"'),
        ({"a": [1, 2]}, {"a": [1]}, "output.a: expected 2 item(s), got 1"),
        ({"a": [1, 2]}, {"a": [2, 1]}, "output.a[0]: expected 1, got 2"),
        ({"a": {"b": "x"}}, {"a": "x"}, "output.a: expected an object"),
        ({"a": ["x"]}, {"a": "x"}, "output.a: expected a list"),
        ({"a": "1"}, {"a": 1}, 'output.a: expected "1", got 1'),
        (
            {"a": {"$unordered": ["x", "y"]}},
            {"a": ["x", "x"]},
            'output.a: no item matches "y" (in any order)',
        ),
        ({"a": {"$unordered": ["x"]}}, {"a": ["x", "y"]}, "output.a: expected 1 item(s) in any order, got 2"),
        ({"a": {"$unordered": ["x"]}}, {"a": "x"}, "output.a: expected a list (in any order)"),
    ],
)
def test_mismatches_name_the_place(expected: object, actual: object, message: str) -> None:
    found = mismatches(expected, actual)
    assert found and found[0].startswith(message), found


@pytest.mark.parametrize(
    "actual",
    [[], ["x", "y"], [""], ["   "], [1], [None], [{"text": "x"}]],
)
def test_any_text_is_one_non_blank_string(actual: object) -> None:
    assert mismatches({"w": [{"$anyText": True}]}, {"w": actual}) != []


def test_any_text_names_what_it_wanted() -> None:
    assert mismatches({"w": {"$anyText": True}}, {"w": ""}) == [
        'output.w: expected some text (any wording), got ""'
    ]


@pytest.mark.parametrize(
    "actual",
    ["Refine (1 cycle so far)", "Refine again", "refine"],
)
def test_any_text_but_matches_other_text(actual: str) -> None:
    assert mismatches({"e": [{"$anyTextBut": ["Refine"]}]}, {"e": [actual]}) == []


@pytest.mark.parametrize(
    "actual",
    ["Refine", "Execute", "", "  ", None, 1, ["x"], {"text": "x"}],
)
def test_any_text_but_refuses_the_listed_texts_and_non_text(actual: object) -> None:
    assert mismatches({"e": {"$anyTextBut": ["Refine", "Execute"]}}, {"e": actual}) != []


def test_any_text_but_names_what_it_refused() -> None:
    assert mismatches({"e": {"$anyTextBut": ["Refine"]}}, {"e": "Refine"}) == [
        'output.e: expected any text but ["Refine"], got "Refine"'
    ]


def test_any_text_but_inside_an_unordered_list() -> None:
    expected = {"e": {"$unordered": ["Execute", {"$anyTextBut": ["Refine"]}]}}
    assert mismatches(expected, {"e": ["Refine (2 cycles so far)", "Execute"]}) == []
    assert mismatches(expected, {"e": ["Refine", "Execute"]}) != []


def test_a_malformed_any_text_but_is_an_ordinary_object() -> None:
    # Not a list of strings: matched as a plain object key, so it cannot pass vacuously.
    assert mismatches({"e": {"$anyTextBut": "Refine"}}, {"e": "Execute"}) != []
