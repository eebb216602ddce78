"""A strategy whose extract raises on a ``tool_calls`` that is no list, as a strategy written
from the wire's usual shape does (a rule docs/spec.md writes in openai-chat, "Reading the
message"): the failure must show what the case expects and the rule, not only where it broke."""

from mcs_conformance.strategies import OpenAIChatStrategy


class RaisesOnToolCallsObject(OpenAIChatStrategy):
    def extract(self, message):
        if isinstance(message, dict) and "tool_calls" in message and not isinstance(message["tool_calls"], list):
            raise TypeError("'dict' object is not iterable")
        return super().extract(message)
