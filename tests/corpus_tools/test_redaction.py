"""Secrets are replaced where they are named and scrubbed wherever else they show up."""

from __future__ import annotations

import base64

import pytest

from mcs_conformance.corpus_tools.redaction import REDACTED, Redactor, is_secret_name

SECRET_NAMES = [
    "Authorization", "Proxy-Authorization", "x-api-key", "api-key", "X-Goog-Api-Key", "Cookie", "Set-Cookie",
    "OpenAI-Organization", "OpenAI-Project", "anthropic-organization-id", "X-Amz-Security-Token",
    "Ocp-Apim-Subscription-Key", "key", "api_key", "access_token", "client_secret",
]
PLAIN_NAMES = [
    "Content-Type", "anthropic-version", "anthropic-beta", "x-ratelimit-remaining-tokens",
    "anthropic-ratelimit-output-tokens-limit", "openai-processing-ms", "x-request-id", "request-id",
    "x-stainless-retry-count", "user-agent", "accept-encoding", "api-version", "model",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_credential_names_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_other_names_are_kept(name: str) -> None:
    assert not is_secret_name(name)


def test_headers_keep_the_scheme_and_remember_the_value() -> None:
    r = Redactor()
    out = r.headers([("Authorization", "Bearer sk-FAKE-0123456789"), ("Content-Type", "application/json"),
                     ("Cookie", "session=FAKESESSION99; theme=dark")], "request")
    assert out == {"authorization": f"Bearer {REDACTED}", "content-type": "application/json", "cookie": REDACTED}
    assert "sk-FAKE-0123456789" in r.secrets and "FAKESESSION99" in r.secrets
    assert r.removed == ["request header authorization", "request header cookie"]
    # the same secret under a name the rule does not know is scrubbed too
    assert r.scrub_headers({"x-echo": "was sk-FAKE-0123456789"}) == {"x-echo": f"was {REDACTED}"}


def test_repeated_headers_are_joined_after_redaction() -> None:
    out = Redactor().headers([("Set-Cookie", "a=FAKE-A-0123456789"), ("Set-Cookie", "b=FAKE-B-0123456789"),
                              ("Via", "1.1 a"), ("Via", "1.1 b")], "response")
    assert out == {"set-cookie": f"{REDACTED}, {REDACTED}", "via": "1.1 a, 1.1 b"}


def test_url_query_and_user_info() -> None:
    r = Redactor()
    url = r.url("https://user:FAKEPASSWORD99@example.test/v1/models/x:stream?alt=sse&key=FAKEQUERYKEY99&api-version=2")
    assert url == f"https://example.test/v1/models/x:stream?alt=sse&key={REDACTED}&api-version=2"
    assert {"FAKEPASSWORD99", "FAKEQUERYKEY99"} <= r.secrets
    assert r.removed == ["url user info", "query key"]


def test_basic_credentials_are_scrubbed_decoded_too() -> None:
    r = Redactor()
    token = base64.b64encode(b"alice:FAKEBASICPASS99").decode()
    assert r.headers([("Authorization", f"Basic {token}")], "request") == {"authorization": f"Basic {REDACTED}"}
    body, n = r.scrub_bytes(b'{"echo": "FAKEBASICPASS99", "raw": "' + token.encode() + b'"}')
    assert n == 2 and b"FAKEBASICPASS99" not in body and token.encode() not in body


def test_short_values_are_replaced_where_named_but_not_searched_elsewhere() -> None:
    r = Redactor()
    assert r.headers([("x-api-key", "abc")], "request") == {"x-api-key": REDACTED}
    assert r.scrub_text("abc is a common word") == ("abc is a common word", 0)
