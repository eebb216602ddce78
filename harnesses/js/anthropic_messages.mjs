/**
 * The @anthropic-ai/sdk package's (beta) `BetaMessageStream` as an `anthropic-messages`
 * strategy, served to the suite through the bridge (harness id anthropic-js-messages).
 *
 * The SDK does the reading and the accumulating: `client.beta.messages.stream({...})` on the
 * SDK's own `Anthropic` client (`new Anthropic({ apiKey, baseURL, fetch, maxRetries: 0 })`,
 * client.d.ts `ClientOptions`), whose `fetch` answers with the recorded wire bytes
 * (`_live.mjs`). Its `BetaMessageStream` runs every event through its accumulator and emits
 * `'streamEvent'` with the event and the message snapshot (lib/BetaMessageStream.d.ts
 * `BetaMessageStreamEvents.streamEvent: (event, snapshot: BetaMessage)`; `currentMessage` is
 * the same object while the stream runs, and `finalMessage()` the snapshot once it has ended).
 * The beta stream is the one the Python twin (harnesses/sdk/anthropic_messages.py) and the
 * suite's SDK oracle read: the plain `client.messages.stream` drops what only the beta
 * accumulator keeps (`context_management`, `usage.iterations` / `fallback_credit` of a
 * `message_delta`, `compaction_delta`, a fallback's model relabel; lib/BetaMessageStream.ts
 * `#accumulateMessage`).
 *
 * Glue choices (everything the adapter decides itself):
 * - One request per stream, answered live (`_live.mjs`): each event's SSE bytes (`event:
 *   <type>\ndata: <json>\n\n`, as harnesses/_wire.py frames them; `"[DONE]"` as sent) are
 *   pushed when the suite feeds the event, and `accumulate` returns once the SDK has read them
 *   and emitted its events. The SDK's `Stream` reads some events without yielding anything
 *   (core/streaming.mjs: `ping`, an event without a name, which is how a `"[DONE]"` line or an
 *   event without a string `type` arrives): the SDK just asks for more bytes. A chunk that is
 *   no JSON object (and no `"[DONE]"`) is refused with `MalformedChunk` before the SDK sees it.
 * - The message is the snapshot the last `'streamEvent'` handed over (the SDK's own object;
 *   none before a `message_start`: the SDK passes those events on without accumulating them,
 *   and its `currentMessage` is cleared once the stream has ended), converted at read time only
 *   (`_glue.lazyRoot`) as JSON: a key the SDK set to `undefined` (`message_delta` assigns
 *   `stop_reason`, `stop_sequence` and `stop_details` whether the delta carries them or not)
 *   is absent, as JSON has no `undefined`; a tool block's `input` is the SDK's lazy
 *   `partialParse` of the JSON received so far. Where that getter throws (text that is no
 *   truncated JSON: `<location>Paris`, NaN), the SDK holds the text and no input until its
 *   stream fails at the block's `content_block_stop`: the block is written with that text as
 *   its `input` (an error call for `extract`), nothing is parsed per event (`render`).
 * - The body is not ended by the adapter (the suite gives no end of the connection): the SDK
 *   reads every event the suite feeds, those after `message_stop` too. At the end of a body its
 *   stream files nothing new (a message is filed at `message_stop`; `#endRequest` only rejects a
 *   stream that started no message), so a stream the suite cuts keeps its last snapshot.
 * - An `error` event: the SDK's `Stream` throws `APIError` for it, raised as `StreamError`
 *   carrying the event. Any other error its stream reports (`'error'`) is its refusal of that
 *   event, raised as `MalformedChunk` with its text escaped (`_glue.errorText`); the stream is
 *   over after it and later events raise the same.
 * - `isDone` is true on `message_stop`; the display text is the text of `text_delta` events
 *   and the text a `text` block starts with (`content_block_start`), for the events the SDK
 *   accumulated.
 * - Recognition: a dict whose `type` is one of the stream's event types (an `error` only
 *   without the `sequence_number` / top-level `message` / `code` of OpenAI's Responses error
 *   event), or an assistant message (`type: "message"`, `role: "assistant"`, a `content` list)
 *   that is no OpenAI Responses message item (those carry `status` and `output_text` /
 *   `input_text` / `refusal` parts).
 * - `extract`: each `tool_use` block (`server_tool_use` / `mcp_tool_use` are run by the
 *   provider and not returned) is a call with its `id`, `name` and `input`. A call carries
 *   `error` when its input is not an object, its name or id is no non-empty string, when the
 *   message has no `stop_reason` yet (`finalMessage()` resolves only after the stream ended),
 *   or when it is the last block of a message cut by `max_tokens`.
 * - `contentText`: the `text` blocks joined; `formingName`: the first `tool_use` block's name.
 * - `resultMessages`: as Anthropic's tool-use docs show: the assistant turn with the message's
 *   `content` (null values dropped; left out what the API refuses: empty text blocks,
 *   `tool_use` blocks without a string id and name; an input that is no object sent as `{}`;
 *   two blocks sharing an id are both replayed, as the Python twin does: the adapter adds no
 *   rule the SDK lacks),
 *   then one user message with a `tool_result` block per record (`is_error` when the record
 *   says so). A record whose id is no `tool_use` block of the message is refused.
 * - Glue check: `glueView` (the SDK's `finalMessage()` once the body ends, beside the adapter's
 *   message read by `extract` / `contentText`); the differences the adapter knows of are
 *   `GLUE_LISTED`.
 */
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { VERSION } from "@anthropic-ai/sdk/version";

import * as glue from "./_glue.mjs";
import { LiveBody, liveFetch, sseBytes } from "./_live.mjs";

const { BridgeError, isObject, nonEmpty } = glue;
const WHO = "anthropic BetaMessageStream";
const EVENTS = new Set(["message_start", "content_block_start", "content_block_delta", "content_block_stop",
  "message_delta", "message_stop", "ping", "error"]);
const JSON_BUF = "__json_buf"; // the text a tool block's lazy input parses (internal/message-stream-utils)
const RESPONSES_PARTS = new Set(["output_text", "input_text", "refusal", "summary_text"]);
let client = null;

function open(state) {
  client ??= new Anthropic({ apiKey: "sk-harness", baseURL: "http://anthropic.harness.invalid", fetch: liveFetch, maxRetries: 0 });
  const live = new LiveBody();
  const runner = client.beta.messages.stream(
    { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] }, { headers: live.headers });
  runner.on("streamEvent", (_event, snapshot) => { state.snapshot = snapshot; state.seen += 1; });
  runner.on("error", (error) => { state.error ??= error; });
  live.ended = runner.done();
  live.ended.catch(() => {});
  Object.assign(state, { live, runner });
}

function refusal(error, chunk) {
  if (error instanceof APIError) {
    const detail = isObject(chunk) ? glue.formatLine(chunk.error ?? null) : glue.errorText(error);
    return new BridgeError("StreamError", `${WHO}: the provider reported an error in the stream: ${glue.errorText(detail)}`, chunk);
  }
  const refused = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
  refused.cause = error; // the SDK's own error (the glue check names it)
  return refused;
}

export class AnthropicMessagesStrategy {
  name = "anthropic-messages";
  leaksIntoText = true;
  implementation = { name: "anthropic-js-messages", version: VERSION, language: "javascript" };

  recognizes(shape) {
    try {
      if (!isObject(shape)) return false;
      const kind = shape.type;
      if (kind === "error") return !["sequence_number", "message", "code"].some((k) => k in shape);
      if (EVENTS.has(kind)) return true;
      const content = shape.content;
      return kind === "message" && shape.role === "assistant" && Array.isArray(content) && !("status" in shape)
        && !content.some((b) => isObject(b) && RESPONSES_PARTS.has(b.type));
    } catch {
      return false;
    }
  }

  isDone(chunk) {
    return isObject(chunk) && chunk.type === "message_stop";
  }

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !isObject(chunk)) throw new BridgeError("MalformedChunk", `${WHO}: an event is a JSON object, got ${glue.typeName(chunk)}`);
    if (state.live === undefined) {
      Object.assign(state, { snapshot: null, seen: 0, error: null, answer: null });
      open(state);
    }
    if (state.answer) throw state.answer;
    const seen = state.seen;
    await state.live.push(sseBytes(chunk, true, glue.formatLine));
    if (state.error !== null) throw (state.answer = refusal(state.error, chunk));
    if (state.seen === seen || done) return ""; // the SDK read it without accumulating it
    glue.lazyRoot(acc, () => render(state));
    const delta = chunk.type === "content_block_delta" ? chunk.delta : undefined;
    if (isObject(delta) && delta.type === "text_delta" && typeof delta.text === "string") return delta.text;
    const block = chunk.type === "content_block_start" ? chunk.content_block : undefined;
    if (isObject(block) && block.type === "text" && typeof block.text === "string") return block.text;
    return "";
  }

  extract(message) {
    const blocks = content(message, "extract");
    const out = [];
    blocks.forEach((block, i) => {
      if (!isObject(block) || block.type !== "tool_use") return;
      const { input, name, id } = block;
      let error = isObject(input) ? null : `input is ${glue.typeName(input ?? null)}, not an object`;
      if (error === null && !nonEmpty(name)) error = "the tool_use block has no name";
      if (error === null && !nonEmpty(id)) error = "the tool_use block has no string id, so no tool_result can answer it";
      if (error === null && (message.stop_reason === null || message.stop_reason === undefined)) {
        error = "the stream has not finished (no stop_reason)";
      }
      if (error === null && message.stop_reason === "max_tokens" && i === blocks.length - 1) {
        error = "the message was cut by max_tokens inside this block";
      }
      out.push(glue.toolCall(typeof name === "string" ? name : "", isObject(input) ? input : {},
        typeof id === "string" ? id : null, null, error));
    });
    return out;
  }

  contentText(message) {
    return content(message, "content_text")
      .filter((b) => isObject(b) && b.type === "text")
      .map((b) => (typeof b.text === "string" ? b.text : ""))
      .join("");
  }

  formingName(message) {
    const blocks = isObject(message) && Array.isArray(message.content) ? message.content : [];
    for (const block of blocks) {
      if (isObject(block) && block.type === "tool_use") return nonEmpty(block.name) ? block.name : null;
    }
    return null;
  }

  resultMessages(message, records) {
    const blocks = isObject(message) ? message.content : undefined;
    if (!Array.isArray(blocks)) throw new BridgeError("ValueError", `${WHO}: not an assembled message (no content list)`);
    records = glue.requireRecords(records, WHO);
    const replayed = blocks.filter((b) => isObject(b) && replayable(b)).map(replay);
    const ids = replayed.filter((b) => b.type === "tool_use").map((b) => b.id);
    const results = records.map((record, n) => {
      const id = record.call.id;
      if (id === null || id === undefined || !ids.includes(id)) {
        throw new BridgeError("ValueError", `${WHO}: record ${n} answers id ${glue.formatLine(id ?? null)}, which is no tool_use block `
          + `of the message (its ids: ${glue.formatLine(ids)})`);
      }
      const result = { type: "tool_result", tool_use_id: id, content: record.result };
      if (record.is_error) result.is_error = true;
      return result;
    });
    const out = [{ role: "assistant", content: replayed }];
    if (results.length) out.push({ role: "user", content: results });
    return out;
  }
}

/** Blocks the API accepts back: no empty text block, no tool_use without string id and name. */
function replayable(block) {
  if (block.type === "text") return Boolean(block.text);
  if (block.type === "tool_use") return nonEmpty(block.id) && nonEmpty(block.name);
  return true;
}

function replay(block) {
  const out = Object.fromEntries(Object.entries(block).filter(([, v]) => v !== null && v !== undefined));
  if (out.type === "tool_use" && !isObject(out.input)) out.input = {}; // the API takes an object only
  return out;
}

function content(message, what) {
  if (!isObject(message)) throw new BridgeError("ValueError", `${WHO}.${what}: expects a message dict, got ${glue.typeName(message)}`);
  return Array.isArray(message.content) ? message.content : [];
}

/** The SDK's snapshot as the bridge writes it. A tool block's `input` is the SDK's lazy getter
 * (internal/message-stream-utils `withLazyInput`: `partialParse` of the text received so far,
 * on first read); on text that is no truncated JSON (`<location>Paris`, NaN) that getter
 * throws, and the SDK's stream fails only when the SDK itself reads it, at the block's
 * `content_block_stop` (lib/BetaMessageStream `#accumulateMessage`). Until then the message the SDK
 * holds has that text (its `__json_buf`) and no input: the block is written with the text as
 * its `input`, which `extract` makes an error call. Otherwise the snapshot is written as it is. */
function render(state) {
  const snapshot = state.snapshot ?? null;
  if (!isObject(snapshot) || !Array.isArray(snapshot.content)) return snapshot;
  let content = null;
  snapshot.content.forEach((block, i) => {
    if (!isObject(block) || !(JSON_BUF in block)) return;
    try {
      void block.input; // memoized by the SDK once it parses
    } catch {
      content ??= [...snapshot.content];
      const { input: _unreadable, ...rest } = Object.getOwnPropertyDescriptors(block);
      content[i] = { ...Object.fromEntries(Object.entries(rest).filter(([, d]) => d.enumerable).map(([k, d]) => [k, d.value])),
        input: block[JSON_BUF] };
    }
  });
  return content === null ? snapshot : { ...snapshot, content };
}

/** The differences between the SDK's own output and the adapter's message the adapter knows
 * of (harnesses/js/glue_check.mjs), each with why; `KEY:CASE` lists one on that case alone. */
const CUT = "a stream cut before message_stop: the suite gives no end of the connection, so the adapter keeps the "
  + "body open and its message is the last snapshot (no stop_reason: every call an error call); the library view ends "
  + "the body after the last event, and the SDK, which files a message at message_stop only, then has none "
  + "(finalMessage(): \"stream ended without producing a Message with role=assistant\")";
const NO_MESSAGE = "a stream whose events never start a message the SDK accumulates: the adapter, its body open, has no "
  + "message (as_dict null); the library view ends the body, and the SDK then rejects it (\"request ended without "
  + "sending any chunks\")";
export const GLUE_LISTED = {
  "calls.arguments:anthropic-messages/syn-input-json-array": "a tool input that is no object (a JSON array), which "
    + "the SDK keeps, is read by extract as a call with error and {} (ToolCall.arguments is an object)",
  "refused:anthropic-messages/syn-malformed-event-not-an-object": "a chunk that is a JSON string (an SSE line left "
    + "unparsed), not an object, is refused with MalformedChunk before the SDK sees it: no SSE event carries a JSON "
    + "string as an event (the SDK, handed its text as an unnamed event, skips it)",
  "text:anthropic-messages/syn-malformed-event-after-message-stop": "a text delta after message_stop: the SDK "
    + "appends it to the snapshot its streamEvent hands over, which is the adapter's message (as the Python twin's "
    + "current snapshot); finalMessage() is the message the SDK parsed at message_stop, without it",
  "refused:anthropic-messages/syn-malformed-content-before-message-start": NO_MESSAGE,
  "refused:anthropic-messages/syn-malformed-message-start-without-message": NO_MESSAGE,
  "refused:anthropic-messages/syn-stream-cut-after-array-bracket": CUT,
  "refused:anthropic-messages/syn-stream-cut-after-empty-input-piece": CUT,
  "refused:anthropic-messages/syn-stream-cut-before-message-delta": CUT,
  "refused:anthropic-messages/syn-stream-cut-in-escaped-input": CUT,
  "refused:anthropic-messages/syn-stream-cut-in-input-leading-zero": CUT,
  "refused:anthropic-messages/syn-stream-cut-in-non-json-input": CUT,
  "refused:anthropic-messages/syn-stream-cut-in-pretty-input-bad-value": CUT,
  "refused:anthropic-messages/syn-stream-cut-in-python-list-input": CUT,
};

/** The SDK's own message beside the adapter's for one case (`null` for a message case: the
 * adapter reads a message without the SDK). The library view feeds every event's bytes to a
 * fresh `beta.messages.stream` and ends the body after the last one, as the transport ends the
 * recorded response; it reads `finalMessage()` (its `text` blocks joined, its `tool_use` blocks
 * with their `input`, `stop_reason`), or what the stream rejected with. The adapter view is
 * `_glue.adapterView`, its stop the message's `stop_reason`. */
export async function glueView(caseObj) {
  if (!Array.isArray(caseObj?.chunks) || !caseObj.chunks.length) return null;
  const state = { snapshot: null, seen: 0, error: null };
  open(state);
  const chunks = structuredClone(caseObj.chunks);
  for (const [i, chunk] of chunks.entries()) await state.live.push(sseBytes(chunk, true, glue.formatLine), i === chunks.length - 1);
  let library;
  try {
    const message = await state.runner.finalMessage();
    const blocks = Array.isArray(message.content) ? message.content : [];
    library = glue.view({
      text: blocks.filter((b) => isObject(b) && b.type === "text").map((b) => (typeof b.text === "string" ? b.text : "")).join(""),
      calls: blocks.filter((b) => isObject(b) && b.type === "tool_use").map((b) => ({ id: b.id ?? null, name: b.name ?? null, arguments: b.input ?? null })),
      stop: message.stop_reason ?? null,
    });
  } catch (error) {
    library = glue.view({ refused: glue.refusalName(error) });
  }
  const stop = (message) => (isObject(message) ? message.stop_reason ?? null : null);
  return { library, adapter: await glue.adapterView(new AnthropicMessagesStrategy(), caseObj.chunks, stop) };
}

if (glue.isMain(import.meta.url)) glue.serve(new AnthropicMessagesStrategy());
