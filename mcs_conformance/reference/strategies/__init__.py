"""The reference strategies and the default chain (natives first, text last).

The four of ADR-0001 make up ``default_chain()``; the text formats of open models
(:mod:`.text_formats`: Hermes, Llama 3 JSON, Mistral, pythonic, Qwen3-Coder, DeepSeek, Kimi K2,
GLM-4.5) and the native wires of Google Gemini (:mod:`.gemini`), Ollama (:mod:`.ollama`) and
Amazon Bedrock ConverseStream (:mod:`.bedrock`) are importable from here too
but belong to no default chain: a driver for such a model puts its format's strategy in its own
chain, as the text strategy (docs/spec.md, "Text formats of open models")."""

from __future__ import annotations

from ..chain import ExtractionChain
from .anthropic_messages import AnthropicMessagesStrategy
from .bedrock import BedrockStrategy
from .cohere import CohereStrategy
from .gemini import GeminiStrategy
from .json_codec import JsonCodec
from .ollama import OllamaStrategy
from .openai_chat import OpenAIChatStrategy
from .openai_responses import OpenAIResponsesStrategy
from .text import TextStrategy
from .text_formats import (
    DeepSeekStrategy,
    Glm45Strategy,
    HermesStrategy,
    KimiK2Strategy,
    Llama3JsonStrategy,
    MistralStrategy,
    PythonicStrategy,
    Qwen3CoderStrategy,
)

__all__ = [
    "AnthropicMessagesStrategy",
    "BedrockStrategy",
    "CohereStrategy",
    "DeepSeekStrategy",
    "GeminiStrategy",
    "Glm45Strategy",
    "HermesStrategy",
    "Llama3JsonStrategy",
    "MistralStrategy",
    "JsonCodec",
    "KimiK2Strategy",
    "OllamaStrategy",
    "OpenAIChatStrategy",
    "OpenAIResponsesStrategy",
    "PythonicStrategy",
    "Qwen3CoderStrategy",
    "TextStrategy",
    "by_name",
    "default_backup",
    "default_chain",
]


def default_chain() -> ExtractionChain:
    """A fresh chain of the reference strategies: the three natives, then text-json."""
    return ExtractionChain(
        [OpenAIChatStrategy(), OpenAIResponsesStrategy(), AnthropicMessagesStrategy(), TextStrategy()]
    )


def default_backup(chain: ExtractionChain | None = None) -> TextStrategy:
    """The backup text strategy: the chain's own text-json instance when it has one."""
    if chain is not None:
        for strategy in chain:
            if isinstance(strategy, TextStrategy):
                return strategy
    return TextStrategy()


def by_name(name: str) -> object | None:
    """A fresh reference strategy whose ``name`` is ``name``, or None when the package has none
    (the default chain's, and the ones for formats outside it)."""
    for factory in _ALL:
        if factory.name == name:
            return factory()
    return None


_ALL = (OpenAIChatStrategy, OpenAIResponsesStrategy, AnthropicMessagesStrategy, TextStrategy, CohereStrategy, GeminiStrategy,
        OllamaStrategy, BedrockStrategy)
