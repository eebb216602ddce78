"""OpenAI Responses API: reassembles ``response.*`` events into the ``response`` object.

The native message is what ``stream=false`` returns: the ``response`` object, in wire form.
``response.created`` seeds it, the item and part events build ``output`` from the deltas,
and ``response.completed`` / ``response.incomplete`` replace it with the event's own
``response``: that snapshot is authoritative and is never merged on top of the deltas.

Keying: every item event is resolved by ``output_index`` first and by ``item_id`` only when
the index points nowhere, because some gateways (GitHub Copilot) send a new ``item_id`` on
every event. The item's ``id`` (``fc_...``) is never used as a call id: calls are answered
by ``call_id``.

Decisions beyond the wire:

* A ``function_call`` / ``custom_tool_call`` item that arrives without a ``status`` gets
  ``"status": "in_progress"`` in the live message until its ``output_item.done``; so a
  message read mid-stream never shows an unfinished call as complete. The final message
  comes from the wire and carries the wire's own status.
* ``custom_tool_call`` items are calls with free-form input: ``arguments`` is
  ``{"input": <input>}``, ``raw_arguments`` the input text.
* Responses tool outputs carry no error flag: a record's ``is_error`` is not sent, its
  ``result`` text is the ``output``.
* When a snapshot (an ``*.done`` event, the completed response) holds more output text
  than the deltas delivered, the missing tail is returned as content delta, so the
  display text always ends equal to ``content_text`` of the message.
* A call item whose ``status`` is neither ``"completed"`` nor absent (``in_progress``,
  ``incomplete``) is extracted as a call with ``error``; arguments with ``NaN`` /
  ``Infinity`` are not JSON and give an error call too.
* ``response.created`` always starts a new response (a capture holding several turns
  resolves to the last); ``response.queued`` / ``response.in_progress`` replace the
  top-level fields and keep the output built so far, whatever their ``id``.
* A completion event whose response has no ``output`` keeps the items the stream
  finished (those that got ``output_item.done``), as the openai SDK does; after an earlier
  completion, every item of that one.
* Output text that ``response.created`` already carries is display text, as a delta's is.
* Item events after the completion are malformed: the final snapshot is not edited.
* The recorded OpenAI ``error`` event nests its error in a dict, as Anthropic's does; it is
  told apart by its ``sequence_number`` (or a top-level ``message`` / ``code``).
* ``result_messages`` replays every output item (built-in tool calls too: the API takes
  them all back as input items), without None-valued keys.

The format's knowledge, in three modules: :mod:`.chunks` folds the events, :mod:`.message`
reads the response object, :mod:`.strategy` holds the protocol methods.
"""

from __future__ import annotations

from .strategy import OpenAIResponsesStrategy

__all__ = ["OpenAIResponsesStrategy"]
