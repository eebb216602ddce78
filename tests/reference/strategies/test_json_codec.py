"""The JSON text codec: finding calls in free text, peeking the forming name, rendering."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_conformance.reference.protocol import ToolCall, ToolCallRecord
from mcs_conformance.strategies import json_codec
from mcs_conformance.reference.strategies.json_codec import JsonCodec
from tests.helpers import realdata

codec = JsonCodec()


def key(call: ToolCall) -> tuple:
    return (call.name, call.arguments, call.id)


def keys(calls: list[ToolCall]) -> list[tuple]:
    return [key(c) for c in calls]


def executable(calls: list[ToolCall]) -> list[ToolCall]:
    return [c for c in calls if c.error is None]


# -- find: the call syntax ------------------------------------------------------------------
def test_single_call() -> None:
    calls = codec.find('{"tool": "get_weather", "arguments": {"city": "Paris"}}')
    assert keys(calls) == [("get_weather", {"city": "Paris"}, None)]
    assert calls[0].error is None and calls[0].executable
    assert calls[0].raw_arguments == '{"city": "Paris"}'


def test_two_calls_in_order() -> None:
    text = '{"tool": "a", "arguments": {"n": 1}}\n{"tool": "b", "arguments": {"n": 2}}'
    assert keys(codec.find(text)) == [("a", {"n": 1}, None), ("b", {"n": 2}, None)]


def test_back_to_back_without_separator() -> None:
    text = '{"tool":"a","arguments":{}}{"tool":"b","arguments":{}}'
    assert keys(codec.find(text)) == [("a", {}, None), ("b", {}, None)]


def test_fenced_call() -> None:
    text = 'Calling it now:\n```json\n{\n  "tool": "search",\n  "arguments": {"q": "cats"}\n}\n```\n'
    assert keys(codec.find(text)) == [("search", {"q": "cats"}, None)]


def test_array_of_calls() -> None:
    text = '[{"tool": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": [2]}}]'
    assert keys(codec.find(text)) == [("a", {"x": 1}, None), ("b", {"y": [2]}, None)]


def test_text_before_call_keeps_call() -> None:  # BUG-CLASSES row 10
    text = 'Let me look that up for you. {"tool": "lookup", "arguments": {"id": 7}}'
    assert keys(codec.find(text)) == [("lookup", {"id": 7}, None)]


def test_text_between_and_after_calls() -> None:  # BUG-CLASSES row 11
    text = (
        'First {"tool": "a", "arguments": {"k": "v"}} then, after some thought, '
        '{"tool": "b", "arguments": {}} and that is all. {not json} [1, 2]'
    )
    assert keys(codec.find(text)) == [("a", {"k": "v"}, None), ("b", {}, None)]


def test_unicode_and_deep_nesting() -> None:
    args = {"città": "Zürich 東京 😀", "deep": {"a": [{"b": {"c": [1, 2.5, None, True, "\n\"x\""]}}]}}
    text = "Voilà " + json.dumps({"tool": "météo_☀", "arguments": args}, ensure_ascii=False)
    assert keys(codec.find(text)) == [("météo_☀", args, None)]
    escaped = json.dumps({"tool": "météo_☀", "arguments": args}, ensure_ascii=True)
    assert keys(codec.find(escaped)) == [("météo_☀", args, None)]


def test_name_parameters_alias() -> None:
    assert keys(codec.find('{"name": "f", "parameters": {"a": 1}}')) == [("f", {"a": 1}, None)]
    assert keys(codec.find('{"tool": "f", "parameters": {"a": 1}}')) == [("f", {"a": 1}, None)]


def test_name_without_arguments_is_not_a_call() -> None:  # llama.cpp#18183
    assert codec.find('{"name": "Alice", "age": 3}') == []
    assert codec.find('The user is {"name": "Alice"}.') == []


def test_extra_keys_and_id() -> None:
    text = '{"type": "function", "id": "call_9", "tool": "f", "arguments": {"a": 1}, "note": null}'
    assert keys(codec.find(text)) == [("f", {"a": 1}, "call_9")]


def test_empty_and_missing_arguments_give_empty_dict() -> None:
    text = '{"tool": "a"} {"tool": "b", "arguments": {}} {"tool": "c", "arguments": ""} {"tool": "d", "arguments": null}'
    calls = codec.find(text)
    assert keys(calls) == [("a", {}, None), ("b", {}, None), ("c", {}, None), ("d", {}, None)]
    assert all(c.error is None for c in calls)


def test_string_serialized_arguments() -> None:
    calls = codec.find('{"tool": "f", "arguments": "{\\"x\\": [1, 2]}"}')
    assert keys(calls) == [("f", {"x": [1, 2]}, None)]
    assert calls[0].raw_arguments == '{"x": [1, 2]}'


@pytest.mark.parametrize(
    "text, name",
    [
        ('{"tool": "f", "arguments": "not json"}', "f"),
        ('{"tool": "f", "arguments": "[1, 2]"}', "f"),
        ('{"tool": "f", "arguments": [1, 2]}', "f"),
        ('{"tool": "f", "arguments": 3}', "f"),
        ('{"tool": "f", "arguments": {"a": 1,}}', "f"),
        ('{"tool": "f", "arguments": {"a": 1} "x": 2}', "f"),
        ('{"name": "g", "arguments": {"a": tru}}', "g"),
        ('{"tool": "", "arguments": {}}', ""),
    ],
)
def test_unparsable_arguments_give_error_call(text: str, name: str) -> None:
    calls = codec.find(text)
    assert len(calls) == 1
    assert calls[0].name == name
    assert calls[0].error
    assert calls[0].arguments == {}
    assert not calls[0].executable


@pytest.mark.parametrize(
    "text",
    [
        '{"tool": "f", "arguments": {"a": 1}',
        '{"tool": "f", "arguments": {"a": "unfinished',
        '{"tool": "f", "arg',
        '{"tool": "f"',
        'ok: {"name": "f", "arguments": {"a": [1, 2',
    ],
)
def test_cut_off_call_is_error_call(text: str) -> None:
    calls = codec.find(text)
    assert [c.name for c in calls] == ["f"]
    assert calls[0].error and "cut off" in calls[0].error
    assert not calls[0].executable


@pytest.mark.parametrize("text", ['{"tool": "get_wea', '{"tool": ', '{"to', '{"name": "f", "argu', "{"])
def test_cut_off_without_readable_name_gives_nothing(text: str) -> None:
    assert codec.find(text) == []


def test_call_after_malformed_call_is_found() -> None:
    text = '{"tool": "f", "arguments": {"a": 1,}}\nSorry, again: {"tool": "f", "arguments": {"a": 1}}'
    calls = codec.find(text)
    assert [c.name for c in calls] == ["f", "f"]
    assert calls[0].error and calls[1].error is None
    assert calls[1].arguments == {"a": 1}


def test_stray_quote_in_prose_does_not_hide_the_call() -> None:
    text = 'I will use {"x and then {"tool": "f", "arguments": {"k": 1}}'
    assert keys(codec.find(text)) == [("f", {"k": 1}, None)]
    text = 'A {"a": "b {"tool": "g", "arguments": {}}'
    assert keys(executable(codec.find(text))) == [("g", {}, None)]


def test_raw_newline_inside_strings_is_accepted() -> None:
    text = '{"tool": "run", "arguments": {"code": "print(1)\nprint(2)"}}'
    assert keys(codec.find(text)) == [("run", {"code": "print(1)\nprint(2)"}, None)]


@pytest.mark.parametrize(
    "text",
    [
        '{"tool_calls": null}',
        '{"role": "assistant", "content": "hi", "tool_calls": null}',
        '{"tools": [{"type": "function"}], "name": "x"}',
        'Here is JSON: {"a": 1, "b": [true, false]}',
        "no braces at all",
        "",
        '<tool_call>get_weather(city="NYC")</tool_call>',
        '{"tool": 3, "arguments": {}}',
        '{"outer": {"tool": "nested", "arguments": {}}}',
    ],
)
def test_call_free_text(text: str) -> None:
    assert codec.find(text) == []
    assert codec.forming_name(text) is None


def test_call_inside_arguments_is_data() -> None:
    inner = {"tool": "inner", "arguments": {"z": 0}}
    text = json.dumps({"tool": "outer", "arguments": {"example": inner}})
    assert keys(codec.find(text)) == [("outer", {"example": inner}, None)]


def test_too_deep_nesting_is_skipped_not_fatal() -> None:
    deep = '{"a": [' * 3000
    text = deep + '\n{"tool": "f", "arguments": {}}'
    assert codec.find(text) == []  # the unclosed value runs to the end and swallows the rest
    balanced = '{"a": ' + "[" * 3000 + "]" * 3000 + "}"
    assert keys(codec.find(balanced + ' {"tool": "f", "arguments": {}}')) == [("f", {}, None)]
    calls = codec.find('{"tool": "f", "arguments": ' + "[" * 3000 + "]" * 3000 + "}")
    assert [c.name for c in calls] == ["f"] and calls[0].error
    calls = codec.find('{"tool": "f", "arguments": "' + "[" * 3000 + '"}')
    assert [c.name for c in calls] == ["f"] and calls[0].error


def test_number_too_long_is_skipped_not_fatal() -> None:
    text = '{"tool": "f", "arguments": {"n": [' + "7" * 5000 + ']}} {"tool": "g", "arguments": {}}'
    calls = codec.find(text)
    assert [c.name for c in calls] == ["f", "g"]
    assert calls[0].error and calls[1].error is None


def test_nan_and_infinity_are_not_json() -> None:
    calls = codec.find('{"tool": "f", "arguments": {"v": NaN}} {"tool": "g", "arguments": "{\\"v\\": -Infinity}"}')
    assert [(c.name, c.arguments) for c in calls] == [("f", {}), ("g", {})]
    assert "NaN is not valid JSON" in calls[0].error and "-Infinity is not valid JSON" in calls[1].error


def test_arguments_string_holding_null_names_null() -> None:
    (call,) = codec.find('{"tool": "f", "arguments": "null"}')
    assert call.error == "tool call 'f': arguments string holds null, not a JSON object"


def test_closing_tag_inside_an_argument_string() -> None:  # BUG-CLASSES row 25
    text = '<tool_call>{"name": "echo", "arguments": {"s": "a </tool_call> b"}}</tool_call> after'
    assert keys(codec.find(text)) == [("echo", {"s": "a </tool_call> b"}, None)]


def test_find_rejects_non_text() -> None:
    with pytest.raises(ValueError, match="str"):
        codec.find(b'{"tool": "f"}')  # type: ignore[arg-type]


# -- the vLLM Hermes parser cases: the JSON inside <tool_call> is name + arguments --------
# Decided by hand from each case's model_output.
HERMES_EXPECT: dict[str, list[tuple[str, dict | None]]] = {
    # plain prose
    "test_hermes_parser_streaming_just_forward_text": [],
    # newline-wrapped JSON inside the tags
    "test_hermes_parser_streaming_failure_case_bug_19056": [("final_answer", {"trigger": True})],
    "test_hermes_parser_streaming": [
        (
            "get_current_temperature",
            {"location": "San Francisco, California, United States", "unit": "celsius"},
        )
    ],
    "test_hermes_streaming_content_then_tool_call_with_stream_interval": [("get_weather", {"city": "NYC"})],
    "test_hermes_streaming_multiple_tool_calls_with_stream_interval": [
        ("search", {"q": "cats"}),
        ("search", {"q": "dogs"}),
    ],
    # no closing tag, but the JSON object is complete
    "test_hermes_parser_non_streaming_tool_call_until_eos": [("final_answer", {"trigger": True})],
    # the object's closing brace is missing: a broken call, never executable
    "test_hermes_parser_non_streaming_tool_call_invalid_json": [("final_answer", None)],
    # arguments sent as a JSON string holding an object
    "test_hermes_parser_non_streaming_serialized_arguments": [("get_db_config", {"param": "max_connections"})],
    # arguments are a bare string, not an object: a broken call
    "test_hermes_parser_non_streaming_bare_string_arguments": [("do_thing", None)],
    "test_hermes_streaming_content_and_tool_call_in_single_chunk": [("f", {"x": 1})],
}


def _hermes_cases() -> list[dict]:
    return json.loads(realdata.path("vllm-hermes/hermes_tool_parser_cases.json").read_text("utf-8"))["cases"]


def test_hermes_cases_all_covered() -> None:
    assert sorted(c["test"] for c in _hermes_cases()) == sorted(HERMES_EXPECT)


@pytest.mark.parametrize("case", _hermes_cases(), ids=lambda c: c["test"])
def test_hermes_case(case: dict) -> None:
    calls = codec.find(case["model_output"])
    expected = HERMES_EXPECT[case["test"]]
    assert [c.name for c in calls] == [name for name, _ in expected]
    for call, (_, arguments) in zip(calls, expected):
        if arguments is None:
            assert call.error and not call.executable
        else:
            assert call.error is None and call.arguments == arguments


# -- linear time, by counting characters scanned ------------------------------------------
@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the characters the codec's scanning primitives go over.

    A decode is charged from its start to where the C scanner stopped: the value's end,
    the error position, the text's end for an unterminated string (the scanner reads to
    the end before it reports the string's start), and the whole value for a failure
    that gives no position (nesting too deep). A JSON error also costs the scan that
    computes its line and column.
    """
    count = {"chars": 0}
    real_decode, real_start, real_skip = json_codec._decode, json_codec._next_start, json_codec._skip_value

    def decode(text: str, pos: int):
        try:
            value, end = real_decode(text, pos)
        except json.JSONDecodeError as exc:
            reached = len(text) if exc.msg.startswith("Unterminated string") else exc.pos + 1
            count["chars"] += max(reached - pos, 1)
            raise
        except (ValueError, RecursionError):
            count["chars"] += max(real_skip(text, pos) - pos, 1)
            raise
        count["chars"] += end - pos
        return value, end

    def next_start(text: str, pos: int) -> int:
        start = real_start(text, pos)
        count["chars"] += (len(text) if start < 0 else start + 2) - pos
        return start

    def skip(text: str, pos: int) -> int:
        end = real_skip(text, pos)
        count["chars"] += max(end - pos, 1)
        return end

    real_error_init = json.JSONDecodeError.__init__

    def error_init(self, msg: str, doc: str, pos: int) -> None:
        # A plain str document makes the error count newlines up to pos (line, column).
        if type(doc).count is str.count:
            count["chars"] += pos
        real_error_init(self, msg, doc, pos)

    monkeypatch.setattr(json.JSONDecodeError, "__init__", error_init)
    monkeypatch.setattr(json_codec, "_decode", decode)
    monkeypatch.setattr(json_codec, "_next_start", next_start)
    monkeypatch.setattr(json_codec, "_skip_value", skip)
    return count


ADVERSARIAL = {
    "open braces": lambda n: "{" * n,
    "open quotes": lambda n: '{"' * n,
    "tool keys": lambda n: '{"tool": ' * n,
    "tool names opened": lambda n: '{"tool": "' * n,
    "nested open": lambda n: '{"a": [' * n,
    "nested balanced": lambda n: '{"a": [' * n + "1" + "]}" * n,
    "unterminated string": lambda n: '{"a": "' + "x" * (7 * n),
    "unterminated name": lambda n: '{"tool": "' + "x" * (7 * n),
    "keys without colon": lambda n: '{"x' * n,
    "strings ending in a brace": lambda n: '{"a": "b {"' * n,
    "members never closed": lambda n: '{"a": 1, ' * n,
    "calls": lambda n: '{"tool": "f", "arguments": {"x": 1}} ' * n,
    "broken calls": lambda n: '{"tool": "f", "arguments": {"x": 1,}} ' * n,
    "cut calls": lambda n: '{"tool": "f", "arguments": {"x": [1, ' * n,
    "whitespace": lambda n: "{" + " " * (7 * n) + '"',
}


@pytest.mark.parametrize("build", ADVERSARIAL.values(), ids=list(ADVERSARIAL))
@pytest.mark.parametrize("operation", ["find", "forming_name"])
def test_scanning_is_linear(build, operation: str, scanned: dict[str, int]) -> None:
    costs = []
    for n in (1_000, 10_000):
        text = build(n)
        scanned["chars"] = 0
        getattr(codec, operation)(text)
        costs.append(scanned["chars"])
        assert scanned["chars"] <= 4 * len(text) + 16
    ratio = costs[1] / max(costs[0], 1)
    assert ratio < 13, costs


def test_counting_detects_quadratic_rescanning(scanned: dict[str, int]) -> None:
    """The counter is able to fail: re-decoding from every brace is charged quadratically."""

    def naive(text: str) -> None:
        pos = 0
        while (start := json_codec._next_start(text, pos)) >= 0:
            try:
                json_codec._decode(text, start)
            except (ValueError, RecursionError):
                pass
            pos = start + 1

    costs = []
    for n in (100, 1_000):
        scanned["chars"] = 0
        naive('{"a": [' * n)
        costs.append(scanned["chars"])
    assert costs[1] / costs[0] > 50


# -- forming_name ----------------------------------------------------------------------------
def _assert_grows(text: str, final: str) -> None:
    seen: str | None = None
    for i in range(len(text) + 1):
        name = codec.forming_name(text[:i])
        if seen is not None:
            assert name is not None and name.startswith(seen), (text[:i], seen, name)
        elif name is not None:
            assert final.startswith(name), (text[:i], name)
        seen = name
    assert seen == final


def test_forming_name_by_hand() -> None:
    text = 'Sure. {"tool": "get_weather", "arguments": {"city": "Oslo"}}'
    assert codec.forming_name(text[: text.index("{")]) is None
    assert codec.forming_name('Sure. {"tool": ') is None
    assert codec.forming_name('Sure. {"tool": "') == ""
    assert codec.forming_name('Sure. {"tool": "get_w') == "get_w"
    assert codec.forming_name('Sure. {"tool": "get_weather", "argu') == "get_weather"
    assert codec.forming_name('{"name": "lookup') is None  # not a call until its arguments start
    assert codec.forming_name('{"name": "Alice", "age": 3') is None
    assert codec.forming_name('{"name": "lookup", "arguments": ') == "lookup"
    assert codec.forming_name('{"name": "lookup", "parameters": {"q"') == "lookup"
    assert codec.forming_name('{"id": "c1", "tool": "lo') == "lo"
    _assert_grows(text, "get_weather")


def test_forming_name_escapes_and_surrogates() -> None:
    text = '{"tool": "a\\"b\\u00e9\\ud83d\\ude00c", "arguments": {}}'
    _assert_grows(text, 'a"bé😀c')
    assert codec.forming_name('{"tool": "a\\u00') == "a"
    assert codec.forming_name('{"tool": "a\\ud83d') == "a"
    assert codec.forming_name('{"tool": "a\\ud83d\\ude00') == "a😀"


def test_forming_name_skips_non_calls() -> None:
    assert codec.forming_name('{"a": 1} then {"tool": "f') == "f"
    assert codec.forming_name('{"name": "Alice", "age": 3}') is None
    assert codec.forming_name('{"tool": "a", "arguments": {}} {"tool": "b"') == "a"


# -- hypothesis: round trip, prefixes --------------------------------------------------------
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
tool_calls = st.builds(
    ToolCall,
    name=st.text(min_size=1, max_size=16),
    arguments=st.dictionaries(st.text(max_size=10), json_values, max_size=5),
    id=st.none() | st.text(max_size=12),
)


@settings(deadline=None)
@given(st.lists(tool_calls, max_size=5))
def test_round_trip(calls: list[ToolCall]) -> None:
    before = copy.deepcopy(calls)
    found = codec.find(codec.render(calls))
    assert keys(found) == keys(calls)
    assert all(c.error is None for c in found)
    assert calls == before


@settings(max_examples=40, deadline=None)
@given(st.lists(tool_calls, min_size=1, max_size=3), st.sampled_from(["", "Sure: ", "```json\n"]))
def test_every_prefix_yields_final_calls_or_errors(calls: list[ToolCall], lead: str) -> None:
    text = lead + codec.render(calls)
    final = codec.find(text)
    assert keys(final) == keys(calls)
    for i in range(len(text) + 1):
        found = codec.find(text[:i])
        good = executable(found)
        assert keys(good) == keys(final[: len(good)]), text[:i]
        broken = [c for c in found if c.error is not None]
        assert len(broken) <= 1 and found[: len(good)] == good, text[:i]
        assert all(not c.executable for c in broken)


@settings(max_examples=40, deadline=None)
@given(st.lists(tool_calls, min_size=1, max_size=2))
def test_forming_name_grows_to_first_name(calls: list[ToolCall]) -> None:
    _assert_grows(codec.render(calls), calls[0].name)


@given(st.text(alphabet=st.characters(blacklist_characters="{")))
def test_forming_name_none_without_braces(text: str) -> None:
    assert codec.forming_name(text) is None
    assert codec.find(text) == []


# -- render, render_results --------------------------------------------------------------------
def test_render_by_hand() -> None:
    text = codec.render([ToolCall("f", {"é": 1}, "c1"), ToolCall("g", {})])
    lines = text.split("\n")
    assert [json.loads(line) for line in lines] == [
        {"tool": "f", "id": "c1", "arguments": {"é": 1}},
        {"tool": "g", "arguments": {}},
    ]
    assert "é" in text  # not \u-escaped


def test_render_rejects_unserializable_arguments() -> None:
    with pytest.raises(ValueError, match="'f'"):
        codec.render([ToolCall("f", {"x": object()})])
    with pytest.raises(ValueError, match="'f'"):
        codec.render([ToolCall("f", {"x": float("nan")})])
    with pytest.raises(ValueError, match="ToolCall"):
        codec.render([{"tool": "f"}])  # type: ignore[list-item]


def test_render_results() -> None:
    records = [
        ToolCallRecord(ToolCall("f", {"a": 1}, "c1"), "sunny"),
        ToolCallRecord(ToolCall("g", {}), "boom", is_error=True),
    ]
    text = codec.render_results(records)
    assert [json.loads(line) for line in text.split("\n")] == [
        {"tool_result": "f", "id": "c1", "result": "sunny"},
        {"tool_result": "g", "result": "boom", "is_error": True},
    ]
    assert codec.find(text) == []  # a result is never read back as a call
