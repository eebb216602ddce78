"""The text tool-call formats of open models, one module per format, each a grammar on
:mod:`..marked_text` and its strategy (none of them is in ``default_chain()``)."""

from __future__ import annotations

from .hermes import HermesStrategy
from .llama3_json import Llama3JsonStrategy
from .mistral import MistralStrategy
from .pythonic import PythonicStrategy

__all__ = ["HermesStrategy", "Llama3JsonStrategy", "MistralStrategy", "PythonicStrategy"]
