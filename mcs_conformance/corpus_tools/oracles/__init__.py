"""The official SDKs' own stream accumulators, run offline as the oracle for stream=false.

Each module here holds one format's oracle: ``final_message(payloads) -> message`` feeds the
wire payloads to the SDK's accumulator and returns the native message in wire form, with
the keys the SDK adds that never were on the wire removed. The SDKs are optional: without
them :class:`OracleUnavailable` says which package to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["OracleUnavailable", "oracle_for", "oracle_module", "ORACLE_MODULES"]

ORACLE_MODULES = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic-messages": "anthropic_messages",
}


class OracleUnavailable(RuntimeError):
    """The SDK that serves as a format's oracle is not installed (or the format has none)."""


def oracle_module(fmt: str) -> Any:
    """The oracle module of a format: ``final_message``, ``calls`` and ``content_text``."""
    name = ORACLE_MODULES.get(fmt)
    if name is None:
        raise OracleUnavailable(f"format {fmt!r} has no SDK oracle (known: {', '.join(ORACLE_MODULES)})")
    return importlib.import_module(f"{__name__}.{name}")


def oracle_for(fmt: str) -> Callable[[list[Any]], Any]:
    """The ``final_message`` function of a format's SDK oracle."""
    return oracle_module(fmt).final_message
