"""Cohere v2 chat: stream events reassembled into the response body that stream=false returns.

The native message is the v2 chat response body, ``{id, message, finish_reason, usage}``: the
object holding the stop reason (``finish_reason`` sits beside ``message``, not in it), as
docs/authoring.md, "A format with no SDK accumulator", says. The Cohere SDK (cohere 7.3.1)
yields the events and folds nothing, so the mapping follows the API reference and the recorded
stream=false bodies:

- ``message-start`` gives the body's ``id`` and seeds ``message`` with its ``delta.message``,
  less the empty values it carries (``content: []``, ``tool_plan: ""``, ``tool_calls: []``,
  ``citations: []``), which a stream=false body leaves out;
- ``content-start`` adds a content block (``text`` or ``thinking``) at its ``index``,
  ``content-delta`` grows that block's ``text`` / ``thinking``;
- ``tool-plan-delta`` grows ``message.tool_plan``;
- ``tool-call-start`` adds a call ``{id, type, function: {name, arguments}}`` keyed by its
  ``index``; ``tool-call-delta`` grows the arguments of the call at its ``index`` (never the
  last call opened); the arguments stay JSON text, as stream=false returns them;
- ``citation-start`` appends its citation to ``message.citations``;
- ``message-end`` sets ``finish_reason`` and ``usage``; it is the completion signal. One that
  carries an ``error`` raises :class:`StreamError`.

Malformed events (before ``message-start``, a delta for a block or call never started or
already ended, a piece that is no string) raise :class:`MalformedChunk` naming the event.
:mod:`.events` holds those checks and the readers of a call; :mod:`.strategy` the strategy.
"""

from __future__ import annotations

from .strategy import CohereStrategy

__all__ = ["CohereStrategy"]
