"""The extraction axis with format-free toy strategies (real formats: test_leaks.py)."""

from mcs_conformance import ExtractionChain, ToolCall, ToolCallRecord, extract_calls
from tests.helpers.toy_strategies import BangText, ListWire


def chain():
    return ExtractionChain([ListWire(), BangText()])


def test_native_call_extracted_by_native():
    ex = extract_calls({"toy": "!nope", "calls": ["a"]}, chain(), BangText())
    assert [c.name for c in ex.calls] == ["a"]
    assert ex.strategy.name == "toy-native" and not ex.via_backup


def test_leak_falls_through_to_backup_and_backup_shapes_history():
    backup = BangText()
    ex = extract_calls({"toy": "call !weather now", "calls": []}, chain(), backup)
    assert ex.calls == (ToolCall(name="weather"),)
    assert ex.via_backup and ex.strategy is backup and ex.resolved.name == "toy-native"
    assert ex.source == "call !weather now"
    assert ex.result_messages([ToolCallRecord(ex.calls[0], "sunny")]) == [{"role": "user", "content": "sunny"}]


def test_no_fall_through_without_backup_or_without_leak_flag():
    assert extract_calls({"toy": "!x", "calls": []}, chain(), None).calls == ()

    class Sealed(ListWire):
        leaks_into_text = False

    ex = extract_calls({"toy": "!x", "calls": []}, ExtractionChain([Sealed(), BangText()]), BangText())
    assert ex.calls == () and ex.strategy.name == "toy-native"


def test_text_message_goes_to_text_strategy_directly():
    ex = extract_calls("please !run", chain(), None)
    assert [c.name for c in ex.calls] == ["run"] and ex.strategy.name == "toy-text" and not ex.via_backup


def test_unclaimed_message():
    ex = extract_calls(12, chain(), BangText())
    assert ex.calls == () and ex.strategy is None and ex.resolved is None
