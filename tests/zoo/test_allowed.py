"""The reference plus one deviation the spec allows passes the default gate, the deviation
reported as a difference from the reference's choice (and failed only at --mcs-gate=reference)."""

from __future__ import annotations

import pytest

SPEC = "tests.zoo.allowed:{}"
CHAT_DONE003 = ["openai-chat/syn-malformed-content-parts-list", "openai-chat/syn-malformed-finish-reason-number",
                "openai-chat/syn-malformed-refusal-number", "openai-chat/syn-malformed-role-object"]

# (strategy, checks run, cases run, items that must report a difference)
ALLOWED = [
    ("ChatRefusesOtherRoles", ["STRUCT-002", "STRUCT-003", "SPLIT-002", "DISPLAY-001"],
     ["openai-chat/msg-user-role-with-tool-calls-not-claimed", "openai-chat/tool-calls-parallel-2"], []),
    ("ChatKeepsEmptyIds", ["EXTRACT-001", "CHAIN-001", "HISTORY-002", "HISTORY-005"],
     ["openai-chat/msg-call-id-empty", "openai-chat/syn-call-id-empty-throughout"],
     ["EXTRACT-001[openai-chat/msg-call-id-empty]", "CHAIN-001[openai-chat/syn-call-id-empty-throughout]"]),
    ("ChatMakesUpIds", ["PARITY-001", "EXTRACT-001", "CHAIN-001", "SPLIT-001", "SPLIT-002", "SPLIT-003", "NOISE-001",
                        "NOISE-002", "PURE-001", "PURE-002", "PURE-003", "PREFIX-001", "HISTORY-001", "HISTORY-002",
                        "HISTORY-005"],
     ["openai-chat/syn-call-id-empty-throughout", "openai-chat/tool-calls-parallel-2"],
     ["PARITY-001[openai-chat/syn-call-id-empty-throughout]"]),
    ("ChatConcatenatesNames", ["PARITY-001", "NAME-001", "EXTRACT-001", "PREFIX-001"],
     ["openai-chat/syn-name-on-every-fragment", "openai-chat/syn-name-pieces-then-whole"],
     ["PARITY-001[openai-chat/syn-name-on-every-fragment]", "NAME-001[openai-chat/syn-name-pieces-then-whole]"]),
    ("ChatEmptyToolCallsAreNull", ["PARITY-001", "CHAIN-001", "RECOG-003"], ["openai-chat/syn-tool-calls-null-and-empty"],
     ["PARITY-001[openai-chat/syn-tool-calls-null-and-empty]"]),
    ("ChatClaimsObjectArguments", ["CHAIN-001", "RECOG-004"], ["openai-chat/msg-ollama-shaped-not-claimed"],
     ["CHAIN-001[openai-chat/msg-ollama-shaped-not-claimed]"]),
    ("ChatAcceptsChunksTheSdkAccepts", ["DONE-003"], CHAT_DONE003, [f"DONE-003[{c}]" for c in CHAT_DONE003]),
    ("AnthropicRefusesRestartWithMalformedChunk", ["DONE-003"],
     ["anthropic-messages/duplicate-message-start", "anthropic-messages/spliced-message-start"],
     ["DONE-003[anthropic-messages/duplicate-message-start]"]),
    ("AnthropicRefusesSurrogateHalves", ["PARITY-001", "SPLIT-001", "SPLIT-002", "SPLIT-003", "NOISE-001", "PURE-002"],
     ["anthropic-messages/syn-surrogate-halves-in-separate-deltas"],
     ["PARITY-001[anthropic-messages/syn-surrogate-halves-in-separate-deltas]",
      "SPLIT-002[anthropic-messages/syn-surrogate-halves-in-separate-deltas]"]),
    ("AnthropicFailsEverySharedId", ["EXTRACT-001", "CHAIN-001", "HISTORY-001", "HISTORY-002", "HISTORY-006"],
     ["anthropic-messages/msg-duplicate-tool-use-id", "anthropic-messages/tool-use-response"],
     ["EXTRACT-001[anthropic-messages/msg-duplicate-tool-use-id]", "CHAIN-001[anthropic-messages/msg-duplicate-tool-use-id]"]),
]


@pytest.mark.parametrize("strategy,checks,cases,differ", ALLOWED, ids=[a[0] for a in ALLOWED])
def test_an_allowed_deviation_passes_the_default_gate(strategy, checks, cases, differ, run_suite) -> None:
    run = run_suite(SPEC.format(strategy), checks, cases, "-rA")
    assert run.failed == {}, "\n\n".join(run.failed.values())
    assert run.passed
    for item in differ:
        assert f"  {item}: differs from the reference's choice" in run.output, (item, run.output[-3000:])


def test_the_reference_gate_fails_an_allowed_deviation(run_suite) -> None:
    run = run_suite(SPEC.format("ChatConcatenatesNames"), ["PARITY-001"], ["openai-chat/syn-name-on-every-fragment"],
                    "--mcs-gate=reference")
    assert list(run.failed) == ["mcs-conformance::PARITY-001[openai-chat/syn-name-on-every-fragment]"]
    assert "level:     reference" in next(iter(run.failed.values()))
