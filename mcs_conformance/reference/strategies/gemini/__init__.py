"""Google Gemini ``streamGenerateContent?alt=sse``: the stream's ``GenerateContentResponse``
payloads folded into the ``GenerateContentResponse`` that ``generateContent`` (stream=false)
returns.

The native message is that whole response body (docs/spec.md, "gemini"): ``candidates[]``
with each candidate's ``content.parts``, ``finishReason`` and the other candidate fields,
beside ``usageMetadata``, ``modelVersion``, ``responseId``. No official SDK folds the stream
(google-genai yields each chunk as a response of its own), so the folding below is the
reference's, written to give the shape of the stream=false body:

- Candidates are keyed by ``index`` (absent: 0). A part is appended to its candidate's
  ``content.parts`` in order; a text part joins the previous part when that one is a text
  part of the same kind (``thought`` or answer) that holds no ``thoughtSignature`` yet (a
  signature closes a text part, as the stream=false body shows it on the text it signs). An
  empty text part that carries nothing else adds nothing.
- A ``functionCall`` part arrives whole (``name``, ``args``, optional ``id``), or, on Vertex AI
  with ``streamFunctionCallArguments``, opened with ``willContinue: true`` and continued by
  parts whose ``functionCall`` has no name and carries ``partialArgs`` (``{jsonPath,
  stringValue|numberValue|boolValue|nullValue, willContinue}``), until a part without
  ``willContinue`` ends it. The message holds the call as stream=false does (``name`` and
  ``args``); while the call is open its ``functionCall`` keeps ``willContinue: true``, which
  ``extract`` reads as arguments not yet complete.
- Every other key (the candidate's ``finishReason`` and metadata, the response's usage
  totals, model version, ids) takes the last value sent.
- An ``{"error": {...}}`` payload raises :class:`StreamError`; a payload whose shape cannot
  be folded raises :class:`MalformedChunk` naming the payload.

A call's id is the wire's ``functionCall.id`` where it sends one, else None (most models send
none; nothing is made up). ``result_messages`` pairs a result with its call by that id, or, for a
call without one, by name and arguments in order, and sends the ``functionResponse`` with the
call's id only when the call had one.
"""

from __future__ import annotations

from .strategy import GeminiStrategy

__all__ = ["GeminiStrategy"]
