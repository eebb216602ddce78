/**
 * LangChain.js's `ChatOpenAI` (`@langchain/openai`) over OpenAI Chat Completions as an
 * `openai-chat` strategy, served to the suite through the bridge (harness id
 * langchain-js-openai).
 *
 * LangChain does the work, on its documented public path: `new ChatOpenAI({ model, apiKey,
 * maxRetries: 0, configuration: { fetch, baseURL } })` (`configuration` is the openai client's
 * options, `fetch` among them), `llm.stream(messages)`, the yielded `AIMessageChunk`s summed with
 * `concat` (`@langchain/core/utils/stream`, as LangChain.js's streaming docs aggregate a
 * stream); the calls are the summed chunk's `tool_call_chunks`, read by langchain-core as
 * `tool_calls` / `invalid_tool_calls`. A `stream=false` message is `llm.invoke(messages)` over
 * the JSON body that carries it. The openai client under LangChain reads the recorded SSE bytes
 * through the `fetch` it is given (`_live.mjs`); nothing is sent anywhere. LangChain keeps no
 * Chat Completions message, so the native message is built from the summed chunk (below), as
 * harnesses/langchain does for the Python library.
 *
 * Glue choices (everything the adapter decides itself):
 * - Live stream: one `ChatOpenAI` and one `llm.stream()` per buffer, its request answered by a
 *   `_live.mjs` `LiveBody` named by the client's `configuration.defaultHeaders` (the call
 *   option `options: { headers }` reaches the openai request on `invoke` only: `stream` hands
 *   the call options on as they are, `_streamResponseChunks`); each chunk's SSE bytes
 *   (`data: <json>\n\n`, `"[DONE]"` as sent) are pushed when the suite feeds the chunk, and
 *   `accumulate` returns once LangChain has
 *   yielded, and the loop summed, every `AIMessageChunk` those bytes hold. The openai client
 *   stops at `data: [DONE]`: later chunks are not read, as LangChain reads none. Every chunk
 *   reaches LangChain, one that is no JSON object too (a string is written as sent, as a
 *   server's unparsed line would be: the openai client's JSON parse refuses it inside
 *   LangChain; a number or a list LangChain skips, it reads `data?.choices?.[0]`).
 * - End of the body: without `data: [DONE]` the body is left open (the suite does not say
 *   which chunk is a stream's last); what LangChain yields when a body ends is one chunk of
 *   `usage_metadata` when the stream carried `usage`, which the message does not hold, so an
 *   open body and an ended one give the same message (the glue view, `glueView`, ends it).
 * - Errors: a chunk with an `error` member is raised as `StreamError` carrying the chunk
 *   before LangChain reads it (`_glue.raiseOnErrorChunk`; the openai client throws `APIError`
 *   for it inside LangChain, as harnesses/langchain has it); any other error LangChain's stream
 *   throws while reading a chunk is that chunk's `MalformedChunk` with its text; the stream is
 *   over after it and later chunks raise the same.
 * - Request: one user message `"hi"` to model `gpt-4o`, a placeholder API key; the request is
 *   never looked at. The response: status 200, `text/event-stream` (`_live.mjs`), or
 *   `application/json` for `invoke`.
 * - Wire message, rendered from the summed `AIMessageChunk` at read time only
 *   (`_glue.lazyRoot`): `role: "assistant"`; `content` LangChain's content string, or `null`
 *   when no delta of choice 0 carried a string content (LangChain holds `""` for both);
 *   `tool_calls` from `tool_call_chunks` in LangChain's order, each `{id, type: "function",
 *   function: {name, arguments}}` with the raw argument text LangChain merged (`type` is not
 *   kept by LangChain; `"function"` is the only type of a Chat Completions function call);
 *   `refusal`, `audio`, `function_call` and `reasoning_content` from `additional_kwargs` when
 *   LangChain put them there (its delta converter keeps a compatible provider's
 *   `reasoning_content`, the chunks' pieces joined by `concat`). Every other key a delta of
 *   choice 0 carried that LangChain does not keep is written as `null`; `null`-valued keys no delta
 *   carried are left out (`_glue.wireKeysOnly`). The
 *   message carries `mcs_langchain: "AIMessageChunk"` (a top-level `mcs_*` annotation, which
 *   PARITY leaves aside) so that `extract` reads it as a streaming LangChain user does.
 * - Choices: only the chunks of the first choice are summed (`response_metadata.completion`
 *   0, the choice's `index` LangChain puts there), as LangChain's own `_generate` keeps a
 *   stream's choices apart (`finalChunks[index]`); the chunks of another choice (a request with
 *   `n > 1`) give no text and change nothing. LangChain reads `choices[0]` of each chunk only.
 * - Per-chunk members: the summed chunk after each chunk LangChain yielded; it exposes the
 *   running state chunk by chunk, nothing is final-only.
 * - `extract`: a message marked `mcs_langchain` is read as the streaming user reads the summed
 *   chunk: each `tool_calls` entry becomes a `tool_call_chunk` of an `AIMessageChunk` of its
 *   own (one per entry, so the order of valid and invalid calls is kept) and is read from that
 *   chunk's `tool_calls` (executable, as LangChain returns it: a call whose name is `""` too)
 *   or `invalid_tool_calls` (a call with `error`, its raw text LangChain's `args` text: `"{}"`
 *   where no argument text came). Any other message (a provider's
 *   `stream=false` answer) is served as `{id, object: "chat.completion", created, model,
 *   choices: [{index: 0, message, finish_reason}]}` (`"tool_calls"` when it has `tool_calls`,
 *   else `"stop"`) and read by `llm.invoke`: the returned `AIMessage`'s `tool_calls` and its
 *   `invalid_tool_calls`, in the order the message lists their ids (LangChain keeps no order
 *   between the two lists; without an id each, valid ones first). A call whose `args`
 *   LangChain made no object (JSON `null`, a number, a list: it keeps what `JSON.parse` gave)
 *   is a call with `error` (a call LangChain returns with the name `""` is kept executable, as
 *   it returns it), and so is an entry of its `tool_calls` that is no call at all (it
 *   leaves `undefined` there for an entry it cannot read); an exception LangChain throws while
 *   reading the message (in `invoke`, or when it collapses its calls on first read) is its own and
 *   is not caught
 *   past `invoke`.
 * - `resultMessages`: the assistant turn as LangChain's own converter writes an `AIMessage`
 *   back (`convertMessagesToCompletionsMessageParams`), then the tool results, through
 *   `_glue.continuation` given the calls of `extract` (asynchronous here): `content` the
 *   message's text, `""` for none; `tool_calls` the calls LangChain holds in its `tool_calls`
 *   (never its `invalid_tool_calls`; one whose `args` are no object, an error call of `extract`,
 *   too), each under the name it holds (`""` or none too, where
 *   `_glue.continuation` leaves nameless calls out) with its arguments as `JSON.stringify`
 *   writes LangChain's object (`convertLangChainToolCallToOpenAI`); when it holds no
 *   executable call, the message's `tool_calls` as they came (LangChain then sends
 *   `additional_kwargs.tool_calls`, the entries as received).
 * - Display text: the string content of the chunks LangChain yielded for a chunk's bytes.
 * - Recognition, `isDone` (`_glue.chatIsDone`, read on the wire chunk), `contentText`,
 *   `formingName`: `_glue.ChatAdapter`.
 * - Glue check (`glueView`, `GLUE_LISTED`, harnesses/glue_check.py): LangChain's view is the
 *   case's whole body (ended after its last chunk) through `llm.stream()`, summed with
 *   `concat`, read from the summed chunk's `content`, `tool_calls` then `invalid_tool_calls`
 *   and `response_metadata.finish_reason`; the adapter's is the chunks fed one by one and the
 *   message read by `extract` and `contentText`. The differences it may find, listed in
 *   `GLUE_LISTED`: the order of valid and invalid calls (LangChain's two lists), a number id
 *   (no suite id), the finish reason (read on the wire chunk).
 */
import { AIMessageChunk } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import { createRequire } from "node:module";
import { APIError } from "openai";

import * as glue from "./_glue.mjs";
import { LiveBody, liveFetch, sseBytes } from "./_live.mjs";

const { BridgeError, isObject } = glue;
const WHO = "langchain-js ChatOpenAI";
const MARK = "mcs_langchain";
const VERSION = createRequire(import.meta.url)("@langchain/openai/package.json").version;
const PROMPT = [["user", "hi"]];
const BASE = "http://openai.harness.invalid/v1";
const NAMELESS = "\u0000mcs-nameless"; // stands for `""` while `_glue.continuation` replays the calls

function llm(fetch, defaultHeaders = undefined) {
  return new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-harness", maxRetries: 0, configuration: { fetch, baseURL: BASE, defaultHeaders } });
}

/** Whether a yielded chunk belongs to the first choice: `response_metadata.completion` is the
 * choice's `index` (`_streamResponseChunks` puts it in `generationInfo`, which `stream()` copies
 * there), the key LangChain's own `_generate` groups a stream's chunks by. */
export const firstChoice = (chunk) => (chunk?.response_metadata?.completion ?? 0) === 0;

function open(state) {
  const live = new LiveBody();
  state.live = live;
  live.ended = (async () => {
    const stream = await llm(liveFetch, live.headers).stream(PROMPT);
    for await (const chunk of stream) {
      if (!firstChoice(chunk)) continue;
      state.full = state.full === null ? chunk : concat(state.full, chunk);
      if (typeof chunk.content === "string") state.text += chunk.content;
    }
  })();
  live.ended.catch((error) => { state.error ??= error; });
}

export class LangChainJSOpenAIStrategy extends glue.ChatAdapter {
  who = WHO;
  implementation = { name: "langchain-js-openai", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (state.live === undefined) {
      Object.assign(state, { full: null, text: "", error: null, answer: null, keys: new Set(), callKeys: new Set(), strings: false });
      open(state);
    }
    if (state.answer) throw state.answer;
    if (!done && isObject(chunk)) {
      glue.raiseOnErrorChunk(chunk, WHO);
      const deltas = glue.choice0Deltas(chunk);
      glue.noteKeys(deltas, state.keys, state.callKeys);
      state.strings ||= deltas.some((d) => typeof d.content === "string");
    }
    glue.lazyRoot(acc, () => render(state));
    state.text = "";
    await state.live.push(sseBytes(chunk, false, glue.formatLine));
    if (state.error !== null) throw (state.answer = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(state.error)}`));
    return state.text;
  }

  async extract(message) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${WHO}.extract: expects an assistant message dict, got ${glue.typeName(message)}`);
    if (message[MARK]) return (Array.isArray(message.tool_calls) ? message.tool_calls : []).map(fromChunk);
    return invoked(message);
  }
  /** The continuation as LangChain's own converter writes an `AIMessage` back
   * (`convertMessagesToCompletionsMessageParams`), through `_glue.continuation`: `content` the
   * message's text (`""` for none: an `AIMessage` always has string content); `tool_calls` the
   * calls LangChain holds executable, each under the name it holds (`""` or none too) with its
   * arguments written by `JSON.stringify` (`convertLangChainToolCallToOpenAI`), or, when it holds
   * none, the message's `tool_calls` as they came (it then sends `additional_kwargs.tool_calls`). */
  async resultMessages(message, records) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${WHO}: the message is a dict, got ${glue.typeName(message)}`);
    const calls = await this.extract(message);
    const content = typeof message.content === "string" || Array.isArray(message.content) ? message.content : "";
    if (!Array.isArray(message.tool_calls) || !calls.some((c) => HELD.has(c))) {
      glue.requireRecords(records, WHO);
      if (records.length || !Array.isArray(message.tool_calls) || !message.tool_calls.length) {
        return glue.continuation(WHO, { ...message, content }, records, calls);
      }
      return [{ role: "assistant", content, tool_calls: message.tool_calls }]; // as they came
    }
    const names = new Map(); // stand-in name -> the name LangChain holds (`""`, or none)
    const kept = message.tool_calls.map((entry, n) => [entry, calls[n]]).filter(([, call]) => call !== undefined && HELD.has(call));
    const entries = kept.map(([entry, call], n) => {
      const fn = isObject(entry) && isObject(entry.function) ? entry.function : {};
      const replayed = { ...entry, function: { ...fn, arguments: glue.formatLine(HELD.get(call) ?? null) } };
      if (glue.nonEmpty(fn.name)) return replayed;
      const stand = `${NAMELESS}${n}`;
      names.set(stand, fn.name);
      replayed.function.name = stand;
      return replayed;
    });
    const out = glue.continuation(WHO, { ...message, content, tool_calls: entries }, records, kept.map(([, call]) => call));
    for (const call of out[0].tool_calls ?? []) {
      if (!names.has(call.function.name)) continue;
      const name = names.get(call.function.name);
      if (typeof name === "string") call.function.name = name;
      else delete call.function.name; // LangChain sends the name it holds: none
    }
    return out;
  }
}

function render(state) {
  const full = state.full;
  if (full === null) return {};
  const message = Object.fromEntries([...state.keys].map((k) => [k, null]));
  message.role = "assistant";
  const content = typeof full.content === "string" ? full.content : null;
  message.content = state.strings ? content : content || null;
  for (const key of ["refusal", "audio", "function_call", "reasoning_content"]) {
    if (Object.hasOwn(full.additional_kwargs ?? {}, key)) message[key] = full.additional_kwargs[key];
  }
  const chunks = full.tool_call_chunks ?? [];
  if (chunks.length) {
    message.tool_calls = chunks.map((tc) => ({ id: tc.id ?? null, type: "function", function: { name: tc.name ?? null, arguments: tc.args ?? null } }));
  }
  const out = glue.wireKeysOnly(message, state.keys, new Set([...state.callKeys, "type"]));
  if (chunks.length) out[MARK] = "AIMessageChunk";
  return out;
}

/** One `tool_calls` entry read through langchain-core's own tool-call-chunk parsing. */
function fromChunk(entry, n) {
  if (!isObject(entry) || !isObject(entry.function)) return glue.toolCall("", {}, null, null, `tool_calls[${n}] is no function call`);
  const { name, arguments: raw } = entry.function;
  return readToolCallChunk({ name, args: raw, id: entry.id, index: n });
}

/** The calls LangChain holds in `tool_calls` (executable in its eyes, a call whose `args` are no
 * object too), each with the `args` it holds: what its converter writes back. */
const HELD = new WeakMap();
const held = (call, args) => { HELD.set(call, args); return call; };

/** One merged `tool_call_chunk` read as langchain-core reads it: an `AIMessageChunk` of its
 * own, its `tool_calls` (executable) or `invalid_tool_calls` (a call with `error`). */
export function readToolCallChunk(fields) {
  const rawText = typeof fields.args === "string" ? fields.args : null;
  const chunk = new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", ...fields }] });
  for (const tc of chunk.tool_calls) {
    const error = !isObject(tc.args) ? `langchain-core's args are ${glue.typeName(tc.args ?? null)}, not an object` : null;
    return held(glue.toolCall(typeof tc.name === "string" ? tc.name : "", error === null ? tc.args : {}, typeof tc.id === "string" ? tc.id : null, rawText, error), tc.args);
  }
  for (const tc of chunk.invalid_tool_calls) {
    return glue.toolCall(tc.name || "", {}, typeof tc.id === "string" ? tc.id : null, typeof tc.args === "string" ? tc.args : rawText,
      tc.error || "langchain-core: invalid tool call");
  }
  return glue.toolCall("", {}, null, rawText, `tool_calls[${fields.index}]: langchain-core returned no call`);
}

/** The message as `ChatOpenAI.invoke` reads it from a `stream=false` response. */
async function invoked(message) {
  const answer = { id: "chatcmpl-mcs", object: "chat.completion", created: 0, model: "gpt-4o",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: message.tool_calls ? "tool_calls" : "stop" }] };
  const fetch = async () => new Response(glue.formatLine(answer), { status: 200, headers: { "content-type": "application/json" } });
  let converted;
  try {
    converted = await llm(fetch).invoke(PROMPT);
  } catch (error) {
    throw new BridgeError("ValueError", `${WHO}.extract: invoke refused the message: ${glue.errorText(error)}`);
  }
  return inMessageOrder(messageCalls(converted), message);
}

/** The calls of an `AIMessage` LangChain returned: its `tool_calls`, then its `invalid_tool_calls`. */
export function messageCalls(converted) {
  const valid = converted.tool_calls ?? []; // LangChain collapses its calls when they are first read; a crash there is its own
  const calls = valid.map((tc, n) => {
    if (!isObject(tc)) return glue.toolCall("", {}, null, null, `LangChain's tool_calls[${n}] is ${glue.typeName(tc ?? null)}, not a call`);
    const error = !isObject(tc.args) ? `LangChain's args are ${glue.typeName(tc.args ?? null)}, not an object` : null;
    return held(glue.toolCall(typeof tc.name === "string" ? tc.name : "", error === null ? tc.args : {}, typeof tc.id === "string" ? tc.id : null, null, error), tc.args);
  });
  return calls.concat((converted.invalid_tool_calls ?? []).filter(isObject).map((tc) => glue.toolCall(tc.name || "", {},
    typeof tc.id === "string" ? tc.id : null, typeof tc.args === "string" ? tc.args : null, tc.error || "invalid tool call")));
}

/** LangChain keeps its valid and invalid calls in two lists: the message's own order of ids puts
 * them back, when each call has an id the message lists once (else as LangChain gives them). */
export function inMessageOrder(calls, message, ids = null) {
  const entries = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  ids ??= entries.filter(isObject).map((e) => e.id);
  if (new Set(ids.map((id) => JSON.stringify(id ?? null))).size !== ids.length) return calls;
  if (calls.some((c) => c.id === null || !ids.includes(c.id))) return calls;
  return [...calls].sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}

// -- the glue check (harnesses/glue_check.py, issue 34 item 3) ---------------------------------
/** The differences the glue check may find between LangChain's own summed chunk and the
 * adapter's converted message, each with why (the glue choices above). */
export const GLUE_LISTED = {
  "stop": "the message holds no finish reason: completion is read on the wire chunk (`isDone`, `_glue.chatIsDone`), whose last finish reason of `choices[0]` is the adapter's; LangChain's summed `response_metadata.finish_reason` joins the finish reasons of every chunk that carries one (`concat` adds strings: `\"tool_callslength\"` for a repeated finish)",
  "calls.id": "a call id the wire gives as a number LangChain keeps as it came; a suite tool call's id is a string or None, so the adapter gives None (no string id answers such a call)",
  "calls.order": "LangChain keeps its executable and its invalid calls in two lists (`tool_calls`, `invalid_tool_calls`); the adapter keeps the order of the summed `tool_call_chunks`, the stream's own, which the two lists lose",
};

/** A view (harnesses/glue_check.py `view`). */
export const view = ({ text = null, calls = [], stop = null, refused = null } = {}) => ({ text, calls, stop, refused });

/** How a view names a refusal: `"provider error"` for the provider's error in the stream (the
 * openai client's `APIError`, the adapter's `StreamError`), else the name of the library's own
 * error (the adapter's `MalformedChunk` carries it as `cause`). */
export function refusalName(error, cause = null) {
  for (let e = error; e; e = e.cause) {
    if (e instanceof APIError || e?.type === "StreamError" || e?.constructor?.name === "APIError") return "provider error";
  }
  const own = cause ?? error;
  return own?.constructor?.name || String(own);
}

/** The body a transport delivers for the chunks: every chunk's SSE bytes, then its end. */
export function wholeBody(chunks, named) {
  const body = new Blob(chunks.map((c) => sseBytes(c, named, glue.formatLine)));
  return async () => new Response(body.stream(), { status: 200, headers: { "content-type": "text/event-stream" } });
}

/** The adapter's answer: the chunks fed to a fresh strategy one by one as the suite feeds
 * them (until one is refused), the message read by its own `extract` and `contentText`;
 * `stopOf(fed)` the finish reason of the chunks it accepted (the message holds none). An
 * executable call's arguments are the object, an invalid one's the raw text, as LangChain
 * holds them. */
export async function adapterView(strategy, chunks, stopOf) {
  const acc = { root: null, state: {} };
  const fed = [];
  for (const chunk of chunks) {
    try {
      await strategy.accumulate(acc, chunk);
    } catch (error) {
      return view({ refused: refusalName(error, acc.state.error ?? null) });
    }
    fed.push(chunk);
  }
  if (acc.root === null) return view({ stop: stopOf(fed) });
  const message = glue.parseLine(glue.formatLine(acc.root));
  const calls = (await strategy.extract(message)).map((c) => ({ id: c.id, name: c.name, arguments: c.error === null ? c.arguments : c.raw_arguments }));
  return view({ text: strategy.contentText(message), calls, stop: stopOf(fed) });
}

/** The last finish reason of the choice LangChain reads (`choices[0]`) among the wire chunks. */
function wireStop(fed) {
  let stop = null;
  for (const chunk of fed) {
    const reason = isObject(chunk) && Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0].finish_reason : null;
    if (reason !== null && reason !== undefined) stop = reason;
  }
  return stop;
}

/** LangChain's answer: the case's whole body through `llm.stream()`, summed with `concat`, read
 * from the summed chunk's `content`, `tool_calls` then `invalid_tool_calls`, and
 * `response_metadata.finish_reason`. */
async function libraryView(chunks) {
  let full = null;
  try {
    for await (const chunk of await llm(wholeBody(chunks, false)).stream(PROMPT)) {
      if (firstChoice(chunk)) full = full === null ? chunk : concat(full, chunk);
    }
  } catch (error) {
    return view({ refused: refusalName(error) });
  }
  if (full === null) return view();
  const calls = [...(full.tool_calls ?? []), ...(full.invalid_tool_calls ?? [])].map((tc) => ({ id: tc.id ?? null, name: tc.name ?? "", arguments: tc.args ?? null }));
  return view({ text: typeof full.content === "string" ? full.content : null, calls, stop: full.response_metadata?.finish_reason ?? null });
}

/** Both views of one stream case (harnesses/glue_check.py). */
export async function glueView(caseObj) {
  const chunks = caseObj.chunks ?? [];
  return { library: await libraryView(structuredClone(chunks)), adapter: await adapterView(new LangChainJSOpenAIStrategy(), structuredClone(chunks), wireStop) };
}

if (glue.isMain(import.meta.url)) glue.serve(new LangChainJSOpenAIStrategy());
