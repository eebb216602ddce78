/**
 * LangChain.js's `ChatOpenAI` (`@langchain/openai`) over the OpenAI Responses API as an
 * `openai-responses` strategy, served to the suite through the bridge (harness id
 * langchain-js-openai-responses).
 *
 * LangChain does the work, on its documented public path: `new ChatOpenAI({ model, apiKey,
 * useResponsesApi: true, maxRetries: 0, configuration: { fetch, baseURL, defaultHeaders } })`
 * (@langchain/openai docs, "Responses API": `useResponsesApi: true`; `configuration` is the
 * openai client's options, `fetch` among them), `llm.stream(messages)`, the yielded
 * `AIMessageChunk`s summed with `concat` (`@langchain/core/utils/stream`), as langchain_openai.mjs
 * does over Chat Completions. LangChain reads the events with the openai client's
 * `responses.create({ stream: true })` and turns each into a chunk
 * (`convertResponsesDeltaToChatGenerationChunk`); its user reads the summed chunk's `content`
 * blocks, `tool_calls` / `invalid_tool_calls` and `additional_kwargs`. LangChain keeps no
 * response object while it streams, so the native message is built from the summed chunk
 * (below). A `stream=false` response is read by `llm.invoke(messages)` over the JSON body
 * (`convertResponsesMessageToAIMessage`).
 *
 * Glue choices (everything the adapter decides itself):
 * - Live stream: one `ChatOpenAI` and one `llm.stream()` per buffer, its request answered by a
 *   `_live.mjs` `LiveBody` named by `configuration.defaultHeaders` (as langchain_openai.mjs);
 *   each event's SSE bytes (`event: <type>\ndata: <json>\n\n`, `_live.mjs` `sseBytes`, named,
 *   as harnesses/_wire.py frames them; a string as sent) are pushed when the suite feeds the
 *   event, and `accumulate` returns once LangChain has yielded, and the loop summed, every
 *   chunk those bytes hold. Every event reaches LangChain, one that is no JSON object too.
 * - End of the body: the body is left open (the suite does not say which event is a stream's
 *   last); LangChain yields nothing when a Responses body ends (`_streamResponseChunks` ends
 *   with the client's loop), so an open body and an ended one give the same message (the glue
 *   view, `glueView`, ends it).
 * - Errors: an error LangChain's stream throws while reading an event is that event's
 *   refusal: the openai client's `APIError` (it throws one for an `error` event and for an
 *   event with a top-level `error` member) as `StreamError` carrying the event, any other as
 *   `MalformedChunk` with its text (`_glue.errorText`); the stream is over after it and later
 *   events raise the same. Nothing is raised by the adapter itself: `response.failed` is handed
 *   to LangChain like any event (it makes no chunk of it).
 * - The message, rendered from the summed chunk at read time only (`_glue.lazyRoot`): `{object:
 *   "response", id, status, output}`; `id` the summed chunk's `id` (else its
 *   `response_metadata.id`), `status` its `response_metadata.status` when LangChain read a
 *   completion event (absent before); `output`, in this order (LangChain keeps no order
 *   between its content blocks and its calls: text blocks are keyed by `content_index`, calls
 *   by `output_index`): the `reasoning` item of `additional_kwargs.reasoning` when it has an
 *   `id` (its `summary` parts joined per index, `index` dropped, as LangChain's
 *   `convertReasoningSummaryToResponsesReasoningItem` does; `encrypted_content` kept); one
 *   `message` item (`role: "assistant"`, no `id` or `status`: LangChain keeps neither) whose
 *   content is one `output_text` part per text block of the summed content, in its order
 *   (`text` as langchain-core's `text` getter reads the block; `annotations` as LangChain converted them, `[]` when none), then a `refusal` part for
 *   `additional_kwargs.refusal`, when there is any part; one item per merged
 *   `tool_call_chunk` in LangChain's order: `function_call` (`call_id` the chunk's `id`,
 *   `name`, `arguments` the argument text LangChain merged, `id` from LangChain's
 *   `__openai_function_call_ids__`) or, for a chunk marked `isCustomTool`, `custom_tool_call`
 *   with `input` that text; no `status` (LangChain keeps none). The message carries
 *   `mcs_langchain: "AIMessageChunk"` (a top-level `mcs_*` annotation) so that `extract` reads
 *   it as a streaming LangChain user does. Before LangChain yielded a chunk the message is
 *   `{object: "response", output: []}` with the mark.
 * - Per-chunk members: the summed chunk after each event; nothing is final-only.
 * - `extract`: a message marked `mcs_langchain`: each call item becomes a `tool_call_chunk`
 *   of an `AIMessageChunk` of its own (`isCustomTool` for a custom call) and is read from its
 *   `tool_calls` (executable; a custom call's arguments are LangChain's `{input}`) or
 *   `invalid_tool_calls` (a call with `error`), as langchain_openai.mjs `readToolCallChunk`.
 *   Any other message (a provider's `stream=false` response) is served as the JSON body to
 *   `llm.invoke`: the returned `AIMessage`'s `tool_calls` then `invalid_tool_calls`, put in
 *   the order of the response's call items by `call_id` (LangChain keeps two lists); an
 *   exception `invoke` throws is `ValueError` with its text.
 * - Display text: the `text` (langchain-core's getter) of the chunks LangChain yielded for an
 *   event's bytes.
 * - `resultMessages`: the message's output items as they are (LangChain replays a response's
 *   `output` as it came: `convertMessagesToResponsesInput` sends `response_metadata.output`),
 *   entries that are no object left out, then a `function_call_output`
 *   (`custom_tool_call_output` for a custom call) per record; a record whose `call_id` is no
 *   call item's is refused with `ValueError`.
 * - Recognition, `isDone` (`response.completed`, `response.incomplete`), `contentText` (the
 *   SDK's `addOutputText` over the output items) and `formingName`: openai_responses.mjs
 *   (`OpenAIResponsesStrategy`), over the message above.
 * - Glue check (`glueView`, `GLUE_LISTED`, harnesses/glue_check.py): LangChain's view is the
 *   case's whole body through `llm.stream()`, summed, read from the summed chunk's `text`,
 *   `tool_calls` then `invalid_tool_calls` and `response_metadata.status`; the adapter's is the
 *   events fed one by one and the message read by `extract`, `contentText` and its `status`.
 */
import { AIMessageChunk } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import { createRequire } from "node:module";
import { APIError } from "openai";

import * as glue from "./_glue.mjs";
import { LiveBody, liveFetch, sseBytes } from "./_live.mjs";
import { adapterView, messageCalls, readToolCallChunk, refusalName, view, wholeBody } from "./langchain_openai.mjs";
import { OpenAIResponsesStrategy } from "./openai_responses.mjs";

const { BridgeError, isObject } = glue;
const WHO = "langchain-js ChatOpenAI (useResponsesApi)";
const MARK = "mcs_langchain";
const VERSION = createRequire(import.meta.url)("@langchain/openai/package.json").version;
const PROMPT = [["user", "hi"]];
const BASE = "http://openai.harness.invalid/v1";
const CALLS = new Set(["function_call", "custom_tool_call"]);

function llm(fetch, defaultHeaders = undefined) {
  return new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-harness", maxRetries: 0, useResponsesApi: true,
    configuration: { fetch, baseURL: BASE, defaultHeaders } });
}

/** The text of one yielded chunk, as langchain-core's `text` reads its text blocks. */
const textOf = (chunk) => (typeof chunk?.text === "string" ? chunk.text : "");

/** One text block's text as langchain-core's `text` reads it on the summed chunk (its
 * `response_metadata` names the provider whose block translator the getter uses: a `null`
 * text reads `"null"`). */
const blockText = (block, meta) => textOf(new AIMessageChunk({ content: [block], response_metadata: meta }));

function open(state) {
  const live = new LiveBody();
  state.live = live;
  live.ended = (async () => {
    const stream = await llm(liveFetch, live.headers).stream(PROMPT);
    for await (const chunk of stream) {
      state.full = state.full === null ? chunk : concat(state.full, chunk);
      state.text += textOf(chunk);
    }
  })();
  live.ended.catch((error) => { state.error ??= error; });
}

function refusal(error, chunk) {
  for (let e = error; e; e = e.cause) {
    if (e instanceof APIError) return new BridgeError("StreamError", `${WHO}: the provider reported an error in the stream: ${glue.errorText(error)}`, chunk);
  }
  return new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
}

export class LangChainJSOpenAIResponsesStrategy extends OpenAIResponsesStrategy {
  implementation = { name: "langchain-js-openai-responses", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    if (state.live === undefined) {
      Object.assign(state, { full: null, text: "", error: null, answer: null });
      open(state);
    }
    if (state.answer) throw state.answer;
    glue.lazyRoot(acc, () => render(state));
    state.text = "";
    await state.live.push(sseBytes(chunk, true, glue.formatLine));
    if (state.error !== null) throw (state.answer = refusal(state.error, chunk));
    return state.text;
  }

  async extract(message) {
    if (!isObject(message) || !Array.isArray(message.output)) {
      throw new BridgeError("ValueError", `${WHO}.extract: expects a response object with an output list, got ${glue.typeName(message)}`);
    }
    if (message[MARK]) {
      return message.output.filter((item) => isObject(item) && CALLS.has(item.type)).map((item, n) => readToolCallChunk({
        name: item.name, args: item.type === "custom_tool_call" ? item.input : item.arguments, id: item.call_id, index: n,
        ...(item.type === "custom_tool_call" ? { isCustomTool: true } : {}),
      }));
    }
    return invoked(message);
  }

  /** The output items as LangChain replays a response (`convertMessagesToResponsesInput`
   * sends `response_metadata.output` as it came), then one `function_call_output` (or
   * `custom_tool_call_output`) per record, answering a call item's `call_id`. */
  resultMessages(message, records) {
    const output = isObject(message) ? message.output : undefined;
    if (!Array.isArray(output)) throw new BridgeError("ValueError", `${WHO}: not a response object (no output list)`);
    records = glue.requireRecords(records, WHO);
    const items = output.filter(isObject);
    const kinds = new Map(items.filter((i) => CALLS.has(i.type) && typeof i.call_id === "string").map((i) => [i.call_id, i.type]));
    const out = [...items];
    records.forEach((record, n) => {
      const id = record.call.id;
      if (typeof id !== "string" || !kinds.has(id)) {
        throw new BridgeError("ValueError", `${WHO}: record ${n} answers call_id ${glue.formatLine(id ?? null)}, which is no call of the `
          + `response (its call_ids: ${glue.formatLine([...kinds.keys()])})`);
      }
      out.push({ type: `${kinds.get(id)}_output`, call_id: id, output: record.result });
    });
    return out;
  }
}

/** The reasoning item of `additional_kwargs.reasoning`: summary parts joined per index. */
function reasoningItem(reasoning) {
  const { summary, ...rest } = reasoning;
  const parts = [];
  const byIndex = new Map();
  for (const part of Array.isArray(summary) ? summary : []) {
    if (!isObject(part)) continue;
    const { index, ...fields } = part;
    const key = index ?? parts.length;
    const seen = byIndex.get(key);
    if (seen === undefined) {
      const entry = { type: "summary_text", ...fields, text: typeof fields.text === "string" ? fields.text : "" };
      byIndex.set(key, entry);
      parts.push(entry);
    } else if (typeof fields.text === "string") {
      seen.text += fields.text;
    }
  }
  return { ...rest, type: "reasoning", summary: parts };
}

function render(state) {
  const full = state.full;
  if (full === null) return { object: "response", output: [], [MARK]: "AIMessageChunk" };
  const meta = isObject(full.response_metadata) ? full.response_metadata : {};
  const kwargs = isObject(full.additional_kwargs) ? full.additional_kwargs : {};
  const message = { object: "response" };
  const id = typeof full.id === "string" ? full.id : meta.id;
  if (typeof id === "string") message.id = id;
  if (typeof meta.status === "string") message.status = meta.status;
  const output = [];
  if (isObject(kwargs.reasoning) && typeof kwargs.reasoning.id === "string") output.push(reasoningItem(kwargs.reasoning));
  const blocks = typeof full.content === "string" ? (full.content ? [{ type: "text", text: full.content }] : []) : (full.content ?? []);
  const parts = blocks.filter((b) => isObject(b) && b.type === "text")
    .map((b) => ({ type: "output_text", text: blockText(b, meta), annotations: Array.isArray(b.annotations) ? b.annotations : [] }));
  if (typeof kwargs.refusal === "string") parts.push({ type: "refusal", refusal: kwargs.refusal });
  if (parts.length) output.push({ type: "message", role: "assistant", content: parts });
  const itemIds = isObject(kwargs.__openai_function_call_ids__) ? kwargs.__openai_function_call_ids__ : {};
  const customIds = isObject(kwargs.__openai_custom_tool_call_ids__) ? kwargs.__openai_custom_tool_call_ids__ : {};
  for (const tc of full.tool_call_chunks ?? []) {
    const custom = tc.isCustomTool === true;
    const item = { type: custom ? "custom_tool_call" : "function_call" };
    const itemId = (custom ? customIds : itemIds)[tc.id];
    if (typeof itemId === "string") item.id = itemId;
    Object.assign(item, { call_id: tc.id ?? null, name: tc.name ?? null, [custom ? "input" : "arguments"]: tc.args ?? null });
    output.push(item);
  }
  message.output = output;
  message[MARK] = "AIMessageChunk";
  return message;
}

/** The calls of a `stream=false` response as `ChatOpenAI.invoke` reads them. */
async function invoked(message) {
  const fetch = async () => new Response(glue.formatLine(message), { status: 200, headers: { "content-type": "application/json" } });
  let converted;
  try {
    converted = await llm(fetch).invoke(PROMPT);
  } catch (error) {
    throw new BridgeError("ValueError", `${WHO}.extract: invoke refused the response: ${glue.errorText(error)}`);
  }
  const calls = messageCalls(converted);
  const ids = message.output.filter((item) => isObject(item) && CALLS.has(item.type)).map((item) => item.call_id);
  if (new Set(ids.map((i) => JSON.stringify(i ?? null))).size !== ids.length) return calls;
  if (calls.some((c) => c.id === null || !ids.includes(c.id))) return calls;
  return [...calls].sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}

// -- the glue check (harnesses/glue_check.py, issue 34 item 3) ---------------------------------
/** The differences the glue check may find between LangChain's own summed chunk and the
 * adapter's converted message, each with why (the glue choices above). */
export const GLUE_LISTED = {
  "calls.order": "LangChain keeps its executable and its invalid calls in two lists (`tool_calls`, `invalid_tool_calls`); the adapter keeps the order of the summed `tool_call_chunks`, the stream's own, which the two lists lose",
};

/** LangChain's answer: the case's whole body through `llm.stream()`, summed with `concat`. */
async function libraryView(chunks) {
  let full = null;
  try {
    for await (const chunk of await llm(wholeBody(chunks, true)).stream(PROMPT)) full = full === null ? chunk : concat(full, chunk);
  } catch (error) {
    return view({ refused: refusalName(error) });
  }
  if (full === null) return view();
  const calls = [...(full.tool_calls ?? []), ...(full.invalid_tool_calls ?? [])].map((tc) => ({ id: tc.id ?? null, name: tc.name ?? "", arguments: tc.args ?? null }));
  return view({ text: full.text, calls, stop: full.response_metadata?.status ?? null });
}

/** Both views of one stream case (harnesses/glue_check.py). */
export async function glueView(caseObj) {
  const chunks = caseObj.chunks ?? [];
  const strategy = new LangChainJSOpenAIResponsesStrategy();
  let status = null;
  const adapter = await adapterView({
    accumulate: async (acc, chunk) => {
      const text = await strategy.accumulate(acc, chunk);
      status = acc.root === null ? null : (glue.parseLine(glue.formatLine(acc.root)).status ?? null);
      return text;
    },
    extract: (m) => strategy.extract(m),
    contentText: (m) => strategy.contentText(m),
  }, structuredClone(chunks), () => status);
  return { library: await libraryView(structuredClone(chunks)), adapter };
}

if (glue.isMain(import.meta.url)) glue.serve(new LangChainJSOpenAIResponsesStrategy());
