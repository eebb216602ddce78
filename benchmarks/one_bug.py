"""One-bug copies of the reference strategies that the failing-run benchmark times.

Each is a reference strategy with one realistic bug whose failures show under re-chunking,
so hypothesis checks (SPLIT-003 and the like) fail and shrink. Three are the zoo's
(tests/zoo/broken.py, where each cites its bug class); the Anthropic one is written here:
it is the copy whose run first showed that shrinking dominated a failing run.
"""

from __future__ import annotations

from typing import Any

from tests.zoo.broken import (
    ChatDropsRepeatedDelta,
    ResponsesMergesFinalSnapshot,
    TextUnescapesEachChunk,
    _AnthropicSteps,
)

__all__ = ["AnthropicEmptyTextEndsBlock", "ONE_BUG"]


class AnthropicEmptyTextEndsBlock(_AnthropicSteps):
    """An empty ``text_delta`` is taken as the end of its text block: the block is closed
    there, so the next delta for it fails as a delta after the block ended. Providers and
    proxies do send empty text deltas, and a re-chunking that cuts a text piece at its start
    or end makes one."""

    def _block_delta(self, acc: Any, event: dict) -> str:
        delta = self._delta_of(event)
        if delta.get("type") == "text_delta" and delta.get("text") == "":
            self._close(acc, event.get("index"))
            return ""
        return super()._block_delta(acc, event)


# format -> (correct strategy, one-bug copy), as --mcs-strategy paths
ONE_BUG = {
    "openai-chat": ("mcs_conformance.strategies:OpenAIChatStrategy",
                    f"tests.zoo.broken:{ChatDropsRepeatedDelta.__name__}"),
    "openai-responses": ("mcs_conformance.strategies:OpenAIResponsesStrategy",
                         f"tests.zoo.broken:{ResponsesMergesFinalSnapshot.__name__}"),
    "anthropic-messages": ("mcs_conformance.strategies:AnthropicMessagesStrategy",
                           f"benchmarks.one_bug:{AnthropicEmptyTextEndsBlock.__name__}"),
    "text-json": ("mcs_conformance.strategies:TextStrategy",
                  f"tests.zoo.broken:{TextUnescapesEachChunk.__name__}"),
}
