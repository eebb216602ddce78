"""Hypothesis profiles of the suite: ci (derandomized, the default under CI), dev, thorough."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

__all__ = ["hypothesis_settings"]

_COMMON = dict(
    deadline=None,
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.function_scoped_fixture],
)

_PROFILES = {
    "ci": settings(max_examples=15, derandomize=True, database=None, print_blob=False, **_COMMON),
    "dev": settings(max_examples=40, **_COMMON),
    "thorough": settings(max_examples=400, **_COMMON),
}


def hypothesis_settings(profile: str) -> settings:
    """The settings object of a named profile."""
    try:
        return _PROFILES[profile]
    except KeyError:
        raise ValueError(f"unknown hypothesis profile {profile!r} (known: {', '.join(_PROFILES)})") from None
