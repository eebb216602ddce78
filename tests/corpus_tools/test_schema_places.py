"""SchemaView: which type cases a schema names at each place of an instance, and its plain-Python ``if`` tests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mcs_conformance.corpus_tools.schemas import load_schema, names
from mcs_conformance.corpus_tools.schema_places import SchemaView, _simple

SHIPPED = [n for n in names() if n != "descriptor"]


def ifs(schema: Any) -> list[Any]:
    out, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "if" in node:
                out.append(node["if"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def named_values(schema: Any) -> list[Any]:
    view = SchemaView(schema)
    return sorted({str(v) for cond in ifs(schema) for _, (kind, want) in view.names_in(cond)
                   for v in (want if kind == "enum" else [want])})


CONDITIONS = [(name, cond) for name in SHIPPED for cond in ifs(load_schema(name))]
VALUES = sorted({v for name in SHIPPED for v in named_values(load_schema(name))}) + ["x_tool_result", "other"]
scalars = st.one_of(st.sampled_from(VALUES), st.none(), st.booleans(), st.integers(-2, 2), st.floats(-1, 1),
                    st.text(max_size=3))
instances = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["type", "text", "index", "delta", "name", "id", "input", "role"]), inner, max_size=4)),
    max_leaves=6)


def test_every_chunk_schema_if_takes_the_plain_python_test() -> None:
    chunk_ifs = [(name, c) for name, c in CONDITIONS if name.endswith(".chunk")]
    assert len(chunk_ifs) >= 20
    assert all(_simple(SchemaView(load_schema(name))._deref(c)) is not None for name, c in chunk_ifs)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(CONDITIONS))), instances)
def test_simple_if_tests_agree_with_jsonschema(n: int, instance: Any) -> None:
    name, cond = CONDITIONS[n]
    view = SchemaView(load_schema(name))
    expected = Draft202012Validator(view.schema).evolve(schema=cond).is_valid(instance)
    assert view._valid(cond, instance) == expected
    simple = _simple(view._deref(cond))
    if simple is not None:
        assert simple(instance) == expected


@pytest.mark.parametrize("cond", [
    {"properties": {"type": {"const": 1}}},
    {"required": ["a"], "properties": {"a": {"enum": [True, 0, "x"]}}},
    {"properties": {"a": {"type": "integer"}}},
])
@pytest.mark.parametrize("value", [1, 1.0, True, False, 0, "x", None])
def test_simple_keeps_json_equality(cond: dict[str, Any], value: Any) -> None:
    simple = _simple(cond)
    assert simple is not None
    assert simple({"type": value, "a": value}) == Draft202012Validator(cond).is_valid({"type": value, "a": value})


def test_places_name_the_cases_where_the_instance_reaches_them() -> None:
    view = SchemaView(load_schema("anthropic-messages.chunk"))
    assert view.switches == frozenset({"type"})
    chunk = {"type": "content_block_start", "index": 1,
             "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {"city": "Paris"}}}
    places = view.places(chunk)
    root_named = {v for _, v in places[()].named["type"]}
    assert {"message_start", "content_block_start", "message_delta", "error"} <= root_named
    block = places[("content_block",)]
    assert ("enum", ["tool_use", "server_tool_use"]) in block.named["type"]
    assert {"id", "name", "input"} <= block.described  # the tool_use case was taken
    assert places[("content_block", "input")].opaque  # {"type": "object"}: its keys are data
    assert not block.opaque


def test_a_schema_without_type_cases() -> None:
    view = SchemaView(load_schema("openai-chat.chunk"))
    assert view.switches == frozenset()
    places = view.places({"choices": [{"index": 0, "delta": {"content": "hi"}}], "usage": {"total_tokens": 3}})
    assert places[("usage",)].opaque and not places[("choices", 0, "delta")].opaque
