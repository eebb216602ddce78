/**
 * The openai npm package's `ResponseStream` as an `openai-responses` strategy, served to the
 * suite through the bridge (harness id openai-js-responses).
 *
 * The SDK does the reading and the accumulating: `client.responses.stream({..., stream:
 * true})` on the SDK's own `OpenAI` client (lib/responses/ResponseStream.d.ts
 * `ResponseCreateAndStreamParams`; README "Streaming responses"), whose client `fetch` answers
 * with the recorded wire bytes (`_live.mjs`). Every event the stream accepts is emitted on
 * its `'event'` listener (`ResponseEvents.event`: "Called for every supported response event"),
 * and the completion events (`'response.completed'`, `'response.incomplete'`) carry the
 * SDK's response. Mid-stream, the message is the SDK's documented accumulator
 * `accumulateResponse(event, snapshot)` (lib/responses/ResponseAccumulator.d.ts: "Applies a
 * streaming event to a response snapshot") run over the events the `ResponseStream` emitted:
 * the stream keeps its own snapshot private (no public getter in ResponseStream.d.ts).
 *
 * Glue choices (everything the adapter decides itself):
 * - One request per stream, answered live (`_live.mjs`): each event's SSE bytes (`event:
 *   <type>\ndata: <json>\n\n`, as harnesses/_wire.py frames them; `"[DONE]"` as sent) are
 *   pushed when the suite feeds the event, and `accumulate` returns once the SDK has read them
 *   and emitted its events. The SDK's stream stops at `data: [DONE]`; the events after it are
 *   not read. An event that is no JSON object is refused with `MalformedChunk` before the SDK
 *   sees it.
 * - Every event reaches the SDK, `error` and `response.failed` too, and its answer is the
 *   adapter's: for an `error` event its stream throws `APIError` (core/streaming.mjs, an SSE
 *   event named `error`; lib/responses/ResponseStream `#addEvent`), raised as `StreamError`
 *   carrying the event; `response.failed` it reads as an event (`'response.failed'`, its
 *   response `status: "failed"`, the output built so far when the event carries none), so the
 *   message is that response and nothing is raised. Any other error its stream reports
 *   (`'error'`) is its refusal of that event, raised as `MalformedChunk` with its text
 *   (`_glue.errorText`) and the SDK's error as its `cause`; the stream is over after it and
 *   later events raise the same.
 * - The body is not ended by the adapter (the suite gives no end of the connection): the SDK
 *   reads every event the suite feeds, those after a `response.completed` too; at the end of
 *   a body its stream only finalizes the snapshot it holds (`#endRequest`; `finalResponse()`
 *   "resolves even when the response is incomplete").
 * - The message: the `accumulateResponse` snapshot over the events the SDK emitted, where a
 *   `response.completed` / `response.incomplete` / `response.failed` event sets it to that
 *   event's `response` (the SDK's own object, its output filled in where the event carries
 *   none) and the events after one apply to it as they do to the stream's own snapshot, which
 *   `finalResponse()` returns once the body ends (an event that accumulator refuses leaves the
 *   snapshot as it was: the stream accepted it; an interim `response.created` / `queued` /
 *   `in_progress` after the first keeps the output items built so far that it does not carry,
 *   as the stream's own snapshot does, `interim`). Converted at read time only (`_glue.lazyRoot`), as JSON, with the keys the
 *   SDK adds that were never on the wire removed: `output_parsed`, `parsed_arguments` on
 *   items, `parsed` on content parts, and `output_text` unless a response on the wire carried
 *   it (the SDK derives it; the Python SDK's is a property, never in its dict).
 * - `isDone` is true on `response.completed`, `response.incomplete` (not on `response.failed`:
 *   the turn failed, so its calls are never executable); the `delta` of
 *   `response.output_text.delta` is display text, and when an event that carries a snapshot
 *   (`*.done`, `response.created`, the completion) leaves the message's output text longer
 *   than the text shown so far, the missing tail is returned as display text (the deltas add
 *   up to `content_text`).
 * - Recognition: a dict whose `type` starts with `response.`, an `error` event with a
 *   `sequence_number` or a top-level `message` / `code` (Anthropic's `error` event has none),
 *   or a response object (`object: "response"`).
 * - `extract`: a dict with an `output` list, else `ValueError`; each `function_call` item is a
 *   call (`call_id`, `name`, `arguments` by `_glue.parseArguments`), each `custom_tool_call`
 *   one with `{"input": input}`. A call carries `error` when its `status` is not `completed`
 *   (absent reads as completed), its name or `call_id` is no non-empty string, or a custom
 *   call's input is no string. `contentText` is the SDK's `addOutputText`
 *   (lib/ResponsesParser) on the message's output; where it stops at an item of no known
 *   shape (`TypeError`), the same join done by the glue, skipping such items.
 * - `resultMessages`: as OpenAI's function-calling docs show: the `output` items (null values
 *   dropped; call items without a string name, `call_id` and `arguments` / `input`, which the
 *   API refuses, left out), then a `function_call_output` (`custom_tool_call_output` for
 *   custom tools) per record; a record whose `call_id` is not in the output is refused.
 * - Glue check: `glueView` (the SDK's `finalResponse()` once the body ends, beside the
 *   adapter's message read by `extract` / `contentText`); the differences the adapter knows of
 *   are `GLUE_LISTED`.
 */
import OpenAI, { APIError } from "openai";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator";
import { addOutputText } from "openai/lib/ResponsesParser";
import { VERSION } from "openai/version";

import * as glue from "./_glue.mjs";
import { LiveBody, liveFetch, sseBytes } from "./_live.mjs";

const { BridgeError, isObject, nonEmpty } = glue;
const WHO = "openai ResponseStream";
const FINAL = new Set(["response.completed", "response.incomplete"]);
const RESPONSE = new Set([...FINAL, "response.failed"]); // events whose response is the SDK's final one
const TEXT_SNAPSHOTS = new Set(["response.output_text.done", "response.content_part.done", "response.output_item.done",
  "response.created", ...RESPONSE]);
const CALLS = new Set(["function_call", "custom_tool_call"]);
const INTERIM = new Set(["response.created", "response.queued", "response.in_progress"]);
let client = null;

function open(state) {
  client ??= new OpenAI({ apiKey: "sk-harness", baseURL: "http://openai.harness.invalid/v1", fetch: liveFetch, maxRetries: 0 });
  const live = new LiveBody();
  const runner = client.responses.stream({ model: "gpt-4o", input: "hi", stream: true }, { headers: live.headers });
  runner.on("event", (event) => {
    state.seen += 1;
    if (isObject(event.response) && Object.hasOwn(event.response, "output_text")) state.wireText = true;
    if (RESPONSE.has(event.type) && isObject(event.response)) { // the SDK's response, output filled in
      state.snapshot = event.response;
      return;
    }
    if (INTERIM.has(event.type) && isObject(state.snapshot) && isObject(event.response)) {
      state.snapshot = interim(event.response, state.snapshot);
      return;
    }
    try {
      state.snapshot = accumulateResponse(event, state.snapshot ?? undefined);
    } catch {
      // the stream accepted the event; the snapshot stays what it was
    }
  });
  runner.on("error", (error) => { state.error ??= error; });
  live.ended = runner.done();
  live.ended.catch(() => {});
  Object.assign(state, { live, runner });
}

function refusal(error, chunk) {
  if (error instanceof APIError) {
    return new BridgeError("StreamError", `${WHO}: the provider reported an error in the stream: ${glue.errorText(error)}`, chunk);
  }
  const refused = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
  refused.cause = error;
  return refused;
}

export class OpenAIResponsesStrategy {
  name = "openai-responses";
  leaksIntoText = true;
  implementation = { name: "openai-js-responses", version: VERSION, language: "javascript" };

  recognizes(shape) {
    try {
      if (!isObject(shape)) return false;
      const kind = shape.type;
      if (typeof kind === "string" && kind.startsWith("response.")) return true;
      if (kind === "error" && ["sequence_number", "message", "code"].some((k) => k in shape)) return true;
      return shape.object === "response";
    } catch {
      return false;
    }
  }

  isDone(chunk) {
    return isObject(chunk) && FINAL.has(chunk.type);
  }

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !isObject(chunk)) throw new BridgeError("MalformedChunk", `${WHO}: an event is a JSON object, got ${glue.typeName(chunk)}`);
    if (state.live === undefined) {
      Object.assign(state, { snapshot: null, seen: 0, error: null, answer: null, shown: "", wireText: false });
      open(state);
    }
    if (state.answer) throw state.answer;
    const seen = state.seen;
    await state.live.push(sseBytes(chunk, true, glue.formatLine));
    if (state.error !== null) throw (state.answer = refusal(state.error, chunk));
    if (state.seen === seen) return "";
    glue.lazyRoot(acc, () => render(state));
    if (chunk.type === "response.output_text.delta" && typeof chunk.delta === "string") {
      state.shown += chunk.delta;
      return chunk.delta;
    }
    if (TEXT_SNAPSHOTS.has(chunk.type)) { // a snapshot may hold text the deltas never delivered
      const text = outputText(render(state) ?? {});
      if (text.length > state.shown.length && text.startsWith(state.shown)) {
        const tail = text.slice(state.shown.length);
        state.shown = text;
        return tail;
      }
    }
    return "";
  }

  extract(message) {
    const out = [];
    for (const item of model(message, "extract").output) {
      const kind = isObject(item) ? item.type : undefined;
      let raw, args, error;
      if (kind === "function_call") {
        raw = item.arguments;
        [args, error] = glue.parseArguments(raw);
      } else if (kind === "custom_tool_call") {
        raw = item.input;
        [args, error] = typeof raw === "string" ? [{ input: raw }, null] : [{}, `input is ${glue.typeName(raw)}, not a string`];
      } else {
        continue;
      }
      const status = item.status || "completed";
      if (error === null && status !== "completed") error = `the call item's status is ${pyRepr(status)}`;
      if (error === null && !nonEmpty(item.name)) error = "the call has no name";
      if (error === null && !nonEmpty(item.call_id)) error = "the call has no call_id, so no result can answer it";
      out.push(glue.toolCall(typeof item.name === "string" ? item.name : "", args,
        typeof item.call_id === "string" ? item.call_id : null, typeof raw === "string" ? raw : null, error));
    }
    return out;
  }

  contentText(message) {
    const response = { output: model(message, "content_text").output };
    try {
      addOutputText(response);
      if (typeof response.output_text === "string") return response.output_text;
    } catch {
      // the SDK's join stops at an item of no known shape
    }
    return outputText(message);
  }

  formingName(message) {
    const output = isObject(message) ? message.output : undefined;
    for (const item of Array.isArray(output) ? output : []) {
      if (isObject(item) && CALLS.has(item.type)) return nonEmpty(item.name) ? item.name : null;
    }
    return null;
  }

  resultMessages(message, records) {
    const output = isObject(message) ? message.output : undefined;
    if (!Array.isArray(output)) throw new BridgeError("ValueError", `${WHO}: not a response object (no output list)`);
    records = glue.requireRecords(records, WHO);
    const items = output.filter((i) => isObject(i) && !unanswerable(i))
      .map((i) => Object.fromEntries(Object.entries(i).filter(([, v]) => v !== null && v !== undefined)));
    const kinds = new Map(items.filter((i) => CALLS.has(i.type)).map((i) => [i.call_id, i.type]));
    const out = [...items];
    records.forEach((record, n) => {
      const id = record.call.id;
      if (id === null || id === undefined || !kinds.has(id)) {
        throw new BridgeError("ValueError", `${WHO}: record ${n} answers call_id ${pyRepr(id ?? null)}, which is no call of the `
          + `response (its call_ids: ${glue.formatLine([...kinds.keys()])})`);
      }
      out.push({ type: `${kinds.get(id)}_output`, call_id: id, output: record.result });
    });
    return out;
  }
}

const pyRepr = (v) => (typeof v === "string" ? `'${v}'` : v === null ? "None" : glue.formatLine(v));

/** An interim lifecycle event on a snapshot that has output: its response, then the items built
 * so far that it does not carry (by type, id and call_id), as the `ResponseStream` keeps them
 * (lib/responses/ResponseStream `#addEvent`'s `retained`); `accumulateResponse` alone would
 * replace the output with the event's. */
function interim(response, snapshot) {
  const identity = (item) => JSON.stringify(isObject(item) ? [item.type ?? null, item.id ?? null, item.call_id ?? null] : [item]);
  const next = structuredClone(response);
  const incoming = Array.isArray(next.output) ? next.output : [];
  const known = new Set(incoming.map(identity));
  const retained = (Array.isArray(snapshot.output) ? snapshot.output : []).filter((item) => !known.has(identity(item)));
  next.output = [...incoming, ...retained];
  return next;
}

/** What `addOutputText` joins, skipping items and parts of no known shape. */
function outputText(message) {
  const output = isObject(message) && Array.isArray(message.output) ? message.output : [];
  let text = "";
  for (const item of output) {
    if (!isObject(item) || item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (isObject(part) && part.type === "output_text" && typeof part.text === "string") text += part.text;
    }
  }
  return text;
}

/** A call item the API would refuse in `input`: its name, call_id, arguments or input is no string. */
function unanswerable(item) {
  if (!CALLS.has(item.type)) return false;
  const payload = item.type === "function_call" ? item.arguments : item.input;
  return !(nonEmpty(item.name) && nonEmpty(item.call_id) && typeof payload === "string");
}

function render(state) {
  const response = state.snapshot;
  if (!isObject(response)) return null;
  const message = structuredClone(response);
  delete message.output_parsed;
  if (!state.wireText) delete message.output_text;
  for (const item of Array.isArray(message.output) ? message.output : []) {
    if (!isObject(item)) continue;
    delete item.parsed_arguments;
    for (const part of Array.isArray(item.content) ? item.content : []) if (isObject(part)) delete part.parsed;
  }
  return message;
}

function model(message, what) {
  if (!isObject(message) || !Array.isArray(message.output)) {
    throw new BridgeError("ValueError", `${WHO}.${what}: expects a response object with an output list, got ${glue.typeName(message)}`);
  }
  return message;
}

/** The differences between the SDK's own output and the adapter's message the adapter knows
 * of (harnesses/js/glue_check.mjs), each with why; `KEY:CASE` lists one on that case alone. */
export const GLUE_LISTED = {
  "refused.type:openai-responses/syn-malformed-event-not-an-object": "a chunk that is a JSON string, not an object, is "
    + "refused with MalformedChunk before the SDK sees it: no SSE event carries a JSON string as an event (the SDK, "
    + "handed the string's text as an event's data, rejects its JSON with its own error)",
};

/** The SDK's own response beside the adapter's message for one case (`null` for a message
 * case: the adapter reads a response without the SDK). The library view feeds every event's
 * bytes to a fresh `responses.stream` and ends the body after the last one, as the transport
 * ends the recorded response; it reads `finalResponse()` (its `function_call` /
 * `custom_tool_call` items, with their `arguments` / `input` text; its `output_text`, joined
 * by the SDK's `addOutputText` where the response has none; `status`), or what the stream
 * rejected with. The adapter view is `_glue.adapterView`, its stop the message's `status`. */
export async function glueView(caseObj) {
  if (!Array.isArray(caseObj?.chunks) || !caseObj.chunks.length) return null;
  const state = { snapshot: null, seen: 0, error: null, wireText: false };
  open(state);
  const chunks = structuredClone(caseObj.chunks);
  for (const [i, chunk] of chunks.entries()) await state.live.push(sseBytes(chunk, true, glue.formatLine), i === chunks.length - 1);
  let library;
  try {
    const response = await state.runner.finalResponse();
    let text = response.output_text;
    if (typeof text !== "string") {
      const copy = { output: response.output };
      try { addOutputText(copy); text = copy.output_text ?? null; } catch { text = null; }
    }
    const calls = (Array.isArray(response.output) ? response.output : []).filter((i) => isObject(i) && CALLS.has(i.type))
      .map((i) => ({ id: i.call_id ?? null, name: i.name ?? null, arguments: (i.type === "function_call" ? i.arguments : i.input) ?? null }));
    library = glue.view({ text, calls, stop: response.status ?? null });
  } catch (error) {
    library = glue.view({ refused: glue.refusalName(error) });
  }
  const stop = (message) => (isObject(message) ? message.status ?? null : null);
  return { library, adapter: await glue.adapterView(new OpenAIResponsesStrategy(), caseObj.chunks, stop) };
}

if (glue.isMain(import.meta.url)) glue.serve(new OpenAIResponsesStrategy());
