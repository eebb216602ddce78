"""The text tool-call formats of open models, one module per format, each a grammar on
:mod:`..marked_text` and its strategy (none of them is in ``default_chain()``)."""

from __future__ import annotations

from .deepseek import DeepSeekStrategy
from .glm45 import Glm45Strategy
from .hermes import HermesStrategy
from .kimi_k2 import KimiK2Strategy
from .llama3_json import Llama3JsonStrategy
from .mistral import MistralStrategy
from .pythonic import PythonicStrategy
from .qwen3_coder import Qwen3CoderStrategy

__all__ = [
    "DeepSeekStrategy",
    "Glm45Strategy",
    "HermesStrategy",
    "KimiK2Strategy",
    "Llama3JsonStrategy",
    "MistralStrategy",
    "PythonicStrategy",
    "Qwen3CoderStrategy",
]

TEXT_FORMATS = (HermesStrategy, Llama3JsonStrategy, MistralStrategy, PythonicStrategy, Qwen3CoderStrategy,
                DeepSeekStrategy, KimiK2Strategy, Glm45Strategy)
"""Every text format's reference strategy, in the order docs/spec.md lists them."""
