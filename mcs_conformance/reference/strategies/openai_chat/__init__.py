"""OpenAI Chat Completions: reassembles ``chat.completion.chunk`` dicts into ``choices[0].message``.

The native message is the assistant message a ``stream=false`` call returns, in wire form:
the keys choice 0's deltas carried (``role``, ``content``, ``refusal``, ``tool_calls`` and
any provider extra such as ``reasoning_content``), folded the way the official SDK folds
them (strings concatenated, objects merged, lists extended, a ``null`` never overwriting a
value). ``tool_calls`` entries are ``{id, type, function: {name, arguments}}`` without the
wire's ``index``. Choices other than index 0 are ignored; ``choices: []`` chunks (usage,
Azure ``prompt_filter_results``) and ``"[DONE]"`` change nothing.

Tool-call fragments are keyed robustly, because OpenAI-compatible servers differ:

* by ``index`` (an int, or a string of digits such as ``"0"``); indices need not start at 0;
* a fragment at a known index whose non-empty ``id`` differs from that call's id starts a
  new call (servers that send every call at index 0); the same id repeated on every
  fragment is the same call; ``id: ""`` counts as no id;
* a fragment without ``index`` continues the call with its id, else the call that took the
  previous fragment, else starts one; a fragment with an unknown id and no index starts a
  new call unless the previous call has no id yet (the id then arrives late);
* a name repeated whole on every fragment is kept once; names and ids may arrive after
  the arguments; the arguments in the fragment that opens a call are kept.

The message is the SDK's, with no key of this library's: nothing in a chat message says
that its stream has not finished (``finish_reason`` sits on the choice), so that fact is
the buffer's ``done``, and the extraction axis (``extract_calls(..., done=buf.done)``)
marks every call of an unfinished stream. The completion signal is the chunk whose choice
0 carries a ``finish_reason`` other than ``length`` or ``content_filter``: those report an
output cut short (the SDK's ``get_final_completion`` refuses to build a completion from
them when it has tools to parse), so a stream they end is not done and none of its calls
runs. ``"[DONE]"`` settles nothing.

Decisions beyond the wire (where the SDK would differ):

* ``role`` and a call's ``id`` and ``type`` are set once, never concatenated (the SDK
  would turn an id repeated on every fragment into ``"call_1call_1"``).
* Numbers in provider extras are added, as the SDK adds them; booleans and values of
  mismatched types keep the first value.
* A delta's ``tool_calls: []`` stays ``[]`` (the SDK's final completion turns it into
  ``null``). A choice without ``index`` counts as choice 0.
* A chunk with a truthy ``error`` member is a provider error: it raises ``StreamError``.
* A call without an id (absent, or ``""`` throughout) is replayed by ``result_messages``
  under an id made up for the continuation, ``call_mcs_<n>``: the API needs one.
* ``extract`` joins UTF-16 surrogate pairs that reached the arguments as two separate
  characters (a pair split across two chunks by a server) before parsing them.

The format's knowledge, in three modules: :mod:`.chunks` reads and folds the chunks,
:mod:`.message` reads the assembled message, :mod:`.strategy` holds the protocol methods.
"""

from __future__ import annotations

from .strategy import OpenAIChatStrategy

__all__ = ["OpenAIChatStrategy"]
