"""Amazon Bedrock Runtime ``ConverseStream``: stream events reassembled into the
``ConverseResponse`` that ``Converse`` (stream=false) returns.

Each chunk is one event object keyed by its event name, as the AWS SDKs yield them:
``{"messageStart": {...}}``, ``{"contentBlockStart": {...}}``, ``{"contentBlockDelta": {...}}``,
``{"contentBlockStop": {...}}``, ``{"messageStop": {...}}``, ``{"metadata": {...}}``, or one of
the exception events (``internalServerException``, ``modelStreamErrorException``, ...).

The native message is the whole ``ConverseResponse`` (``{"output": {"message": {role, content}},
"stopReason", "usage", "metrics", ...}``): the stop reason lives outside ``output.message``
(docs/spec.md, "bedrock"). Blocks are placed by ``contentBlockIndex``; a tool's input
fragments are joined per index, never by arrival order. The input is parsed when its block
stops (``""`` gives ``{}``; text that is no JSON object is kept raw, so ``extract`` reports an
error call); while it is open a read shows a partial parse.

Modules: :mod:`.events` checks events and names a malformed one, :mod:`.strategy` folds
them and reads the message.
"""

from __future__ import annotations

from .strategy import BedrockStrategy

__all__ = ["BedrockStrategy"]
