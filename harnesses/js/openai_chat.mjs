/**
 * The openai npm package's `ChatCompletionStream` as an `openai-chat` strategy, served to the
 * suite through the bridge (harness id openai-js-chat).
 *
 * The SDK does the reading and the accumulating, on the path its README and typings show:
 * `new OpenAI({ apiKey, baseURL, fetch, maxRetries: 0 })` (README "Customizing the fetch
 * client", "Retries"), `client.chat.completions.stream({..., stream: true})`
 * (lib/ChatCompletionStream.d.ts: `ChatCompletionStreamParams`, "Streaming is always enabled
 * by the helper and may be specified explicitly"), whose `'chunk'` event hands each raw chunk
 * with "its accumulated chat-completion snapshot" (`ChatCompletionStreamEvents.chunk`). The
 * client's `fetch` answers with the recorded wire bytes (`_live.mjs`); no network, no patching.
 *
 * Glue choices (everything the adapter decides itself):
 * - One request per stream, answered live (`_live.mjs`): each chunk's SSE bytes (`data:
 *   <json>\n\n`; `"[DONE]"` as sent) are pushed when the suite feeds the chunk, and
 *   `accumulate` returns once the SDK has read them and emitted its events. The SDK's stream
 *   stops at `data: [DONE]` (core/streaming.mjs `fromSSEResponse`): the chunks after it are
 *   not read, as a user's loop never sees them. A chunk that is no JSON object (and no
 *   `"[DONE]"`) is refused with `MalformedChunk` before the SDK sees it.
 * - End of the body: the suite gives no end of the connection, so the adapter ends the body
 *   where the provider closes the response: after `[DONE]` (the SDK stops there itself), or
 *   after the chunk that gives every choice the stream has opened so far (a choice index seen
 *   in a chunk, absent read as 0) a `finish_reason`, for a provider that sends no `[DONE]`
 *   (what it sends after that, a usage chunk, holds nothing of the message; in the bundled
 *   corpus no choice delta with content follows such a chunk). At the end of the body the
 *   SDK finishes the completion (`_createChatCompletion`: `#endRequest`,
 *   `finalizeChatCompletion`), which refuses a choice with no `role` or no `finish_reason`;
 *   that refusal is the ending chunk's (`MalformedChunk`, below). Chunks fed after the end are
 *   past the response: not read, no display text. A stream that never finishes every choice
 *   (cut) keeps its body open, and its message is the last chunk snapshot. On a stream that
 *   sends `[DONE]` after its finish, the message is so the finished completion from the
 *   finishing chunk on, where a reader of the SDK's chunk snapshots still sees the snapshot
 *   until `[DONE]` (a call without an id there has none yet; the completion makes one up).
 * - The SDK's `APIError` for an event with an `error` member (core/streaming.mjs) is raised
 *   as `StreamError` carrying the chunk, worded by `_glue.raiseOnErrorChunk`; any other error
 *   the SDK's stream reports (its `'error'` event: a chunk it refuses, or its finalisation at
 *   the end of the body, `finalizeChatCompletion`) is its refusal of that chunk, raised as
 *   `MalformedChunk` with its text (`_glue.errorText`); the stream is over after it and later
 *   chunks raise the same.
 * - The message is choice 0's `message` of the snapshot the last `'chunk'` event handed over
 *   (the SDK's own object), and once the SDK has finished the completion (at the end of the body: its
 *   `'chatCompletion'` event, the completion `finalChatCompletion()` resolves with) that
 *   completion's. Either with the keys the SDK adds that were never on the wire removed
 *   (`_glue.wireKeysOnly`, the rule of the suite's SDK oracle); the values are the SDK's,
 *   untouched (the `call_<uuid>` id it makes up for a call without one included). `content`
 *   and `refusal`, typed `string | null` on the SDK's message, read as the SDK's final
 *   completion writes them (`?? null`: the chunk snapshot leaves them out until text
 *   arrives), before that rule, so a `null` the wire carried is kept and one it never carried
 *   is not, mid-stream and after the end of the body alike (as the Python twin's model does). Converted
 *   at read time only (`_glue.lazyRoot`).
 * - Unfinished streams: `isDone` (`_glue.chatIsDone`) is false until a finish other than
 *   `length` / `content_filter` arrives; the buffer's `done` tells the extraction axis.
 * - `extract`: `_glue.chatCalls` (the SDK parses arguments only for tools given to the
 *   request with `strict` or a parser; none is given, so the glue parses with
 *   `_glue.parseArguments`); a call without a function name is a call with `error`. Ids are
 *   kept as the SDK holds them (`""` too).
 * - Display text: the `content` of choice 0's deltas in each chunk the SDK emitted a
 *   `'chunk'` event for.
 * - Recognition, `isDone`, `contentText`, `formingName` and the continuation:
 *   `_glue.ChatAdapter` (see there).
 * - Glue check: `glueView` (the SDK's `finalChatCompletion()` once the body ends, beside the
 *   adapter's message read by `extract` / `contentText`); the differences the adapter knows of
 *   are `GLUE_LISTED`.
 */
import OpenAI, { APIError } from "openai";
import { VERSION } from "openai/version";

import * as glue from "./_glue.mjs";
import { LiveBody, liveFetch, sseBytes } from "./_live.mjs";

const { BridgeError } = glue;
const WHO = "openai ChatCompletionStream";
// typed `string | null` on the SDK's message; its snapshot leaves them out until text arrives,
// finalizeChatCompletion writes them `?? null`: read the same way at every point of the stream
const TYPED_NULL = ["content", "refusal"];
let client = null;

function open(state) {
  client ??= new OpenAI({ apiKey: "sk-harness", baseURL: "http://openai.harness.invalid/v1", fetch: liveFetch, maxRetries: 0 });
  const live = new LiveBody();
  const runner = client.chat.completions.stream(
    { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], stream: true }, { headers: live.headers });
  runner.on("chunk", (_chunk, snapshot) => { state.snapshot = snapshot; state.seen += 1; });
  runner.on("chatCompletion", (completion) => { state.final = completion; });
  runner.on("error", (error) => { state.error ??= error; });
  live.ended = runner.done();
  live.ended.catch(() => {});
  Object.assign(state, { live, runner });
}

/** Whether the response ends after `chunk`: every choice index seen so far (`open`, index ->
 * finished; an absent index read as 0) has its `finish_reason` (see the header). */
function everyChoiceFinished(chunk, open) {
  for (const c of Array.isArray(chunk.choices) ? chunk.choices : []) {
    if (!glue.isObject(c)) continue;
    const key = String(c.index ?? 0); // the SDK's `choices[index]` slot
    if (!open.has(key)) open.set(key, false);
    if (c.finish_reason !== null && c.finish_reason !== undefined) open.set(key, true);
  }
  return open.size > 0 && [...open.values()].every(Boolean);
}

/** The SDK's answer to the chunk whose bytes made its stream fail, as the protocol's error. */
function refusal(error, chunk) {
  if (error instanceof APIError && glue.isObject(chunk) && chunk.error) {
    try {
      glue.raiseOnErrorChunk(chunk, WHO);
    } catch (streamError) {
      return streamError;
    }
  }
  const refused = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
  refused.cause = error; // the SDK's own error (the glue check names it)
  return refused;
}

export class OpenAIChatStrategy extends glue.ChatAdapter {
  who = WHO;
  implementation = { name: "openai-js-chat", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !glue.isObject(chunk)) {
      throw new BridgeError("MalformedChunk", `${WHO}: a chunk is a JSON object or "[DONE]", got ${glue.typeName(chunk)}`);
    }
    if (state.live === undefined) {
      Object.assign(state, { snapshot: null, final: null, seen: 0, error: null, answer: null, keys: new Set(), callKeys: new Set(),
        open: new Map() });
      open(state);
    }
    if (state.answer) throw state.answer; // the stream is over; the SDK's answer stands
    const seen = state.seen;
    await state.live.push(sseBytes(chunk, false, glue.formatLine), !done && everyChoiceFinished(chunk, state.open));
    if (state.error !== null) throw (state.answer = refusal(state.error, chunk));
    if (state.seen === seen) return "";
    const deltas = glue.choice0Deltas(chunk);
    glue.noteKeys(deltas, state.keys, state.callKeys);
    glue.lazyRoot(acc, () => render(state));
    return deltas.map((d) => (typeof d.content === "string" ? d.content : "")).join("");
  }
}

function render(state) {
  const snapshot = state.final ?? state.snapshot;
  if (!snapshot) return null;
  const choices = Array.isArray(snapshot.choices) ? snapshot.choices : [];
  const choice = choices.find((c) => glue.isObject(c) && c.index === 0);
  if (choice === undefined) return {};
  const message = { ...(glue.isObject(choice.message) ? choice.message : {}) };
  for (const k of TYPED_NULL) if (!Object.hasOwn(message, k)) message[k] = null;
  return glue.wireKeysOnly(message, state.keys, state.callKeys);
}

/** The differences between the SDK's own output and the adapter's message the adapter knows
 * of (harnesses/js/glue_check.mjs), each with why; `KEY:CASE` lists one on that case alone. */
export const GLUE_LISTED = {
  "refused:openai-chat/syn-stream-cut-mid-second-call": "a stream cut before its finish: the suite gives no end of the "
    + "connection, so the adapter keeps the body open and its message is the last chunk snapshot (the buffer's done "
    + "is false, every call an error call); the library view ends the body after the last chunk, and the SDK then "
    + "rejects the completion (finalizeChatCompletion: \"missing finish_reason for choice 0\")",
  "refused.type:openai-chat/syn-unparsed-sse-line": "a chunk that is a JSON string (an SSE line left unparsed), not an "
    + "object, is refused with MalformedChunk before the SDK sees it: no SSE event carries it as one chunk (the SDK, "
    + "handed the line's text as an event's data, rejects its JSON with its own error)",
  "calls.id:openai-chat/syn-call-id-empty-throughout": "calls whose id is \"\" on every fragment get an id the SDK "
    + "makes up when it finishes the completion (`call_<uuid>`), a new one per run: the library view's run and the "
    + "adapter's give two ids",
  "calls.id:openai-chat/syn-malformed-fragment-id-number": "an id that is a number, which the SDK keeps, is no id of a "
    + "tool call (ToolCall.id is a string or null): extract reads it as null",
  "calls.id:openai-chat/syn-malformed-second-fragment-id-number": "an id that is a number, which the SDK keeps, is no "
    + "id of a tool call (ToolCall.id is a string or null): extract reads it as null",
  "calls.name:openai-chat/syn-malformed-fragment-name-number": "a function name that is a number, which the SDK keeps, "
    + "is no name (ToolCall.name is a string): extract reads the call as one without a name, with error",
};

/** The SDK's own completion beside the adapter's message for one case (`null` for a message
 * case: the adapter reads a message without the SDK). The library view feeds every chunk's
 * bytes to a fresh `chat.completions.stream` and ends the body after the last one, as the
 * transport ends the recorded response; it reads `finalChatCompletion()`'s choice 0 (`content`,
 * its `tool_calls` with their `arguments` text, `finish_reason`), or what the stream rejected
 * with. The adapter view is `_glue.adapterView`, its stop the wire's (`_glue.wireFinish`). */
export async function glueView(caseObj) {
  if (!Array.isArray(caseObj?.chunks) || !caseObj.chunks.length) return null;
  const state = { snapshot: null, final: null, seen: 0, error: null };
  open(state);
  const chunks = structuredClone(caseObj.chunks);
  for (const [i, chunk] of chunks.entries()) await state.live.push(sseBytes(chunk, false, glue.formatLine), i === chunks.length - 1);
  let library;
  try {
    const completion = await state.runner.finalChatCompletion();
    const choice = completion.choices.find((c) => glue.isObject(c) && c.index === 0);
    const message = choice?.message ?? {};
    library = glue.view({ text: message.content ?? null, stop: choice?.finish_reason ?? null,
      calls: (message.tool_calls ?? []).map((t) => ({ id: t?.id ?? null, name: t?.function?.name ?? null, arguments: t?.function?.arguments ?? null })) });
  } catch (error) {
    library = glue.view({ refused: glue.refusalName(error) });
  }
  return { library, adapter: await glue.adapterView(new OpenAIChatStrategy(), caseObj.chunks, (_m, fed) => glue.wireFinish(fed)) };
}

if (glue.isMain(import.meta.url)) glue.serve(new OpenAIChatStrategy());
