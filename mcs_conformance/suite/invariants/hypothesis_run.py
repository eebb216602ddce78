"""How an invariant runs a property under hypothesis: the subject's profile, explicit examples
first, and the shrunk failure passed on as the check's own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Subject

__all__ = ["given_run"]


def given_run(subject: "Subject", strategy: Any, test: Callable[[Any], None], examples: Sequence[Any] = ()) -> None:
    """Run ``test`` under hypothesis with the subject's profile; the shrunk failure propagates.

    ``examples`` run first, in every profile, before any random value: the inputs a check's
    documentation promises to catch must not depend on the profile's luck."""
    from hypothesis import example, given, settings

    wrapped = given(strategy)(lambda value: test(value))
    for value in reversed(list(examples)):
        wrapped = example(value)(wrapped)
    profile = subject.settings.get("hypothesis")
    if profile is not None:
        wrapped = settings(profile)(wrapped)
    wrapped()
