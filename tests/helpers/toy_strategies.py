"""Tiny format-free strategies for testing the buffer, chain and extraction axis alone."""

from __future__ import annotations

from collections.abc import Sequence

from mcs_conformance import Accumulator, ToolCall, ToolCallRecord


class ListWire:
    """Chunks are {"toy": "x"} dicts; the message is {"toy": text, "calls": [...]}."""

    name = "toy-native"
    leaks_into_text = True

    def recognizes(self, shape: object) -> bool:
        return isinstance(shape, dict) and "toy" in shape

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        assert isinstance(chunk, dict)
        if acc.state.get("started") is None:
            acc.root = {"toy": "", "calls": []}
            acc.state["started"] = True
        if "call" in chunk:
            acc.root["calls"].append(chunk["call"])
            return ""
        acc.append(acc.root, "toy", chunk["toy"])
        return chunk["toy"]

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("end") is True

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(name=c, arguments={}) for c in message["calls"]]  # type: ignore[index]

    def content_text(self, message: object) -> str:
        return message["toy"]  # type: ignore[index]

    def forming_name(self, message: object) -> str | None:
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        return [{"toy": r.result} for r in records]


class BangText:
    """A text strategy: every word starting with '!' is a call."""

    name = "toy-text"
    leaks_into_text = False

    def recognizes(self, shape: object) -> bool:
        return isinstance(shape, str)

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        assert isinstance(chunk, str)
        acc.append(None, None, chunk)
        return chunk

    def is_done(self, chunk: object) -> bool:
        return False

    def extract(self, message: object) -> list[ToolCall]:
        return [ToolCall(name=w[1:]) for w in str(message).split() if w.startswith("!") and len(w) > 1]

    def content_text(self, message: object) -> str:
        return str(message)

    def forming_name(self, message: object) -> str | None:
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        return [{"role": "user", "content": "; ".join(r.result for r in records)}]
