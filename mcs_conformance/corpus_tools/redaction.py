"""Keep secrets out of captures: header and query values that carry credentials are replaced.

A header or query parameter is secret when one of the words of its name (split at ``-``,
``_`` and ``.``) is a credential word: ``Authorization``, ``x-api-key``, ``api-key``,
``Cookie``/``Set-Cookie``, ``OpenAI-Organization``, ``OpenAI-Project``,
``anthropic-organization-id``, ``?key=``, ``access_token`` ... Its value becomes
``[REDACTED]`` (``Bearer [REDACTED]`` keeps the scheme). A top-level field of a JSON request
body named for a credential (``api_key``, ``access_token``, ``prompt_cache_key``) is replaced
the same way; nested fields are left alone, they are messages and tool inputs, not the API's
own parameters. Every secret value found is also remembered, so that the same string is
scrubbed wherever else it shows up (the request, the response, the capture's meta data),
whichever side it was first seen on. The rule errs on the side of removing:
``Idempotency-Key`` is replaced too.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["REDACTED", "Redactor", "is_secret_field", "is_secret_name"]

REDACTED = "[REDACTED]"

_WORDS = frozenset({
    "auth", "authorization", "apikey", "key", "token", "secret", "password", "passwd", "credential",
    "credentials", "cookie", "cookie2", "session", "sessionid", "organization", "organisation", "org",
    "project", "signature", "sig",
})
# a JSON body field: only the credential words (a body's "session" or "project" is data, not an account id)
_FIELD_WORDS = frozenset({
    "auth", "authorization", "apikey", "key", "token", "secret", "password", "passwd", "credential",
    "credentials", "cookie",
})
_SPLIT = re.compile(r"[-_.\s]+")
_SCHEME = re.compile(r"^(Bearer|Basic|Token|Digest)\s+(\S.*)$", re.IGNORECASE)
_MIN_SCRUB = 8  # shorter values are replaced where they are named, but not searched for elsewhere


def is_secret_name(name: str) -> bool:
    """Does a header or query parameter of this name carry a credential or an account id?"""
    return any(word in _WORDS for word in _SPLIT.split(name.lower()) if word)


def is_secret_field(name: str) -> bool:
    """Does a top-level field of this name in a JSON request body carry a credential?"""
    words = [w for w in _SPLIT.split(re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()) if w]
    return any(word in _FIELD_WORDS for word in words) or "apikey" in "".join(words)


class Redactor:
    """Redacts headers and URLs and remembers the secret values it removed, to scrub them elsewhere."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()
        self.removed: list[str] = []  # what was redacted, e.g. "request header authorization", "query key"

    def headers(self, items: Iterable[tuple[str, str]], where: str) -> dict[str, str]:
        """Headers as ``{lower-case name: value}`` with secret values replaced (repeats joined by ``, ``)."""
        out: dict[str, str] = {}
        for name, value in items:
            key = name.lower()
            if is_secret_name(key):
                self._remember(value)
                value = self._replacement(value)
                self.removed.append(f"{where} header {key}")
            out[key] = f"{out[key]}, {value}" if key in out else value
        return self.scrub_headers(out)

    def scrub_headers(self, headers: dict[str, str]) -> dict[str, str]:
        """Header values with any remembered secret replaced (a secret echoed under another name)."""
        return {k: self.scrub_text(v)[0] for k, v in headers.items()}

    def url(self, url: str) -> str:
        """The URL without user info and with secret query values replaced."""
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, netloc = netloc.rpartition("@")
            self._remember(userinfo)
            self._remember(userinfo.partition(":")[2])
            self.removed.append("url user info")
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            kept = []
            for name, value in pairs:
                if is_secret_name(name):
                    self._remember(value)
                    value = REDACTED
                    self.removed.append(f"query {name}")
                kept.append((name, value))
            query = urlencode(kept, safe="[]")
        return self.scrub_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))[0]

    def json_body(self, body: Any, where: str) -> Any:
        """A JSON body with its top-level credential fields replaced (their values remembered)."""
        if not isinstance(body, dict):
            return body
        out = dict(body)
        for name, value in body.items():
            if isinstance(value, str) and is_secret_field(name):
                self._remember(value)
                out[name] = REDACTED
                self.removed.append(f"{where} body field {name}")
        return out

    def scrub_value(self, value: Any) -> tuple[Any, int]:
        """A JSON value with every remembered secret replaced in its strings (keys too), and how many."""
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, list):
            items = [self.scrub_value(v) for v in value]
            return [v for v, _ in items], sum(n for _, n in items)
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            total = 0
            for k, v in value.items():
                key, n = self.scrub_value(k) if isinstance(k, str) else (k, 0)
                out[key], m = self.scrub_value(v)
                total += n + m
            return out, total
        return value, 0

    def scrub_text(self, text: str) -> tuple[str, int]:
        """``text`` with every remembered secret replaced, and how many replacements were made."""
        n = 0
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret in text:
                n += text.count(secret)
                text = text.replace(secret, REDACTED)
        return text, n

    def scrub_bytes(self, data: bytes) -> tuple[bytes, int]:
        """``data`` with every remembered secret (as UTF-8) replaced."""
        n = 0
        for secret in sorted(self.secrets, key=len, reverse=True):
            raw = secret.encode("utf-8", "surrogatepass")
            if raw in data:
                n += data.count(raw)
                data = data.replace(raw, REDACTED.encode())
        return data, n

    def _replacement(self, value: str) -> str:
        m = _SCHEME.match(value.strip())
        return f"{m.group(1)} {REDACTED}" if m else REDACTED

    def _remember(self, value: str) -> None:
        value = value.strip()
        candidates = {value}
        m = _SCHEME.match(value)
        if m:
            candidates.add(m.group(2).strip())
            if m.group(1).lower() == "basic":
                try:
                    user_pass = base64.b64decode(m.group(2).strip(), validate=True).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError):
                    user_pass = ""
                candidates.update({user_pass, user_pass.partition(":")[2]})
        for part in re.split(r";\s*", value):  # cookies: a=b; c=d
            candidates.add(part.partition("=")[2].strip())
        self.secrets.update(c for c in candidates if len(c) >= _MIN_SCRUB)
