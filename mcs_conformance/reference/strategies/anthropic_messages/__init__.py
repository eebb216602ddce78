"""Anthropic Messages: stream events reassembled into the ``Message`` that stream=false returns.

The native message is the ``Message`` object in wire form. It starts as a copy of
``message_start.message``; ``content_block_start`` adds a block, ``content_block_delta``
grows it, ``message_delta`` sets the stop reason and the usage totals. What the official
SDK's (beta) accumulator does is the reference, with these deliberate differences:

- Tool input (``tool_use``, ``server_tool_use``, ``mcp_tool_use``) is the ``partial_json``
  text accumulated from the first piece on: the start block's ``{}`` is not a prefix of
  it. It is parsed once, when the block ends (``content_block_stop``): ``""`` gives ``{}``,
  a JSON object gives that object, and anything else is stored as the raw text, so that
  ``extract`` reports an error instead of running a lenient partial parse. While the
  block is open -- and for a block that never ends, as in a stream cut by max_tokens --
  a read of the message shows the SDK's partial parse (computed only when the message is
  read); ``extract`` never returns such a call as executable (see its rules).
- ``signature_delta`` adds to the block's signature: an empty one changes nothing (the
  SDK assigns, so a later empty delta would wipe the signature).
- An ``error`` event raises :class:`StreamError` carrying the event. A second
  ``message_start`` in one stream raises it too: a restarted or spliced stream is never
  silently merged into the first message.
- A known delta sent to a block it does not apply to (``text_delta`` for a ``tool_use``
  block, say) or to an index never started raises :class:`MalformedChunk`; the SDK
  ignores the first and crashes on the second. ``input_json_delta`` applies to any block
  whose type ends in ``tool_use``.

Unknown delta types are handled as the beta SDK handles ``compaction_delta``: a delta
named after its block's type (``<type>_delta``) sets the fields it carries; any other
unknown delta, ``ping`` and unknown event types are ignored. A ``fallback`` block names
the model that served the response, which becomes the message's ``model``.

The format's knowledge, in three modules: :mod:`.chunks` parses streamed tool input and
checks events, :mod:`.message` reads content blocks, :mod:`.strategy` holds the strategy with
its per-event folding.
"""

from __future__ import annotations

from .strategy import AnthropicMessagesStrategy

__all__ = ["AnthropicMessagesStrategy"]
