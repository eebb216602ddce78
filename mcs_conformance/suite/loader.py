"""Turn a ``module:attr`` path into a strategy instance, with readable errors."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from ..reference.protocol import protocol_members

__all__ = ["StrategyPathError", "load_strategy", "not_a_strategy"]


class StrategyPathError(ValueError):
    """The ``module:attr`` path cannot be turned into a strategy; the message says why."""


def load_strategy(spec: str) -> Any:
    """Import ``pkg.module:Attr`` and return a strategy: Attr itself, Attr(), or Attr's instance.

    Attr may be a class (instantiated with no arguments), a zero-argument factory, or an
    instance. A dotted attribute path (``module:Outer.Inner``) is followed.
    """
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise StrategyPathError(f"{spec!r} is not of the form 'package.module:Attr'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise StrategyPathError(f"cannot import module {module_name!r}: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        raise StrategyPathError(f"importing module {module_name!r} raised {type(exc).__name__}: {exc}") from exc
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise StrategyPathError(f"module {module_name!r} has no attribute {attr_path!r}")
        obj = getattr(obj, part)
    if inspect.isclass(obj) or (callable(obj) and not hasattr(obj, "recognizes")):
        try:
            inspect.signature(obj).bind()
        except TypeError as exc:
            raise StrategyPathError(f"{spec} must be callable with no arguments: {exc}") from exc
        except ValueError:
            pass  # no signature to read (a builtin): let the call decide
        try:
            obj = obj()
        except Exception as exc:
            raise StrategyPathError(f"calling {spec}() raised {type(exc).__name__}: {exc}") from exc
    return obj


def not_a_strategy(obj: Any) -> str | None:
    """Why ``obj`` cannot be run as a strategy (the protocol members it lacks, with how each
    is declared), or None when every member is there. Types and arities are STRUCT-001's."""
    members = protocol_members()
    missing = [decl for member, decl in members.items()
               if not hasattr(obj, member) or (member not in ("name", "leaks_into_text") and not callable(getattr(obj, member)))]
    if not missing:
        return None
    what = type(obj).__name__
    return (f"{what} is not an ExtractionStrategy: it lacks {len(missing)} of the protocol's {len(members)} members:\n"
            + "\n".join(f"    {decl}" for decl in missing)
            + "\n  (a class, zero-argument factory or instance with these members; see docs/authoring.md)")
