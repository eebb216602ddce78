"""Hypothesis profiles of the suite: ci (derandomized, the default under CI), dev, thorough;
and each profile's shrink budget (seconds of shrinking per failing item)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

__all__ = ["SHRINK_BUDGETS", "hypothesis_settings", "shrink_budget"]

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


# Seconds a failing item may spend shrinking its example (--mcs-shrink-budget overrides; 0: no
# limit). A few seconds take most failures to a small example; a run with many failing items
# then costs at most about twice a passing run (benchmarks/bench_failing.py). thorough is the
# profile for searching hard, so it shrinks longer.
SHRINK_BUDGETS = {"ci": 3.0, "dev": 3.0, "thorough": 30.0}


def shrink_budget(profile: str) -> float:
    """The default shrink budget of a named profile, in seconds."""
    hypothesis_settings(profile)  # the same error for an unknown profile
    return SHRINK_BUDGETS[profile]

