/**
 * The Vercel AI SDK (`ai`'s `streamText`) over `@ai-sdk/openai`'s Chat Completions model as an
 * `openai-chat` strategy, served to the suite through the bridge (harness id
 * vercel-ai-openai-chat).
 *
 * The library reads, parses and accumulates, on its documented path: `createOpenAI({ fetch,
 * apiKey, baseURL }).chat("gpt-4o")` (@ai-sdk/openai "Provider Instance", "Chat Models") given
 * to `streamText`, its `fullStream` read part by part (`_vercel.mjs`); a `stream=false`
 * message is read by `generateText` on the same model over the JSON body. The AI SDK keeps no
 * Chat Completions message: its caller sees `text-*`, `tool-input-*`, `tool-call`, `finish`
 * and `error` parts, so the native message is built from those parts by the glue below.
 *
 * Glue choices (everything the adapter decides itself; the feed's are `_vercel.mjs`'s):
 * - Wire: each chunk as `data: <json>\n\n` (`_live.mjs` `sseBytes`, unnamed), `"[DONE]"` as
 *   sent. The body ends (`_vercel.mjs`) after `[DONE]`, or after the chunk that gives the last
 *   open choice its `finish_reason` (every choice index the stream's chunks opened has one):
 *   what the provider sends after that (a usage chunk, `[DONE]`) holds nothing of the message,
 *   and a provider that sends no `[DONE]` closes the response there. A chunk that is no JSON
 *   object (and no `"[DONE]"`) is refused with `MalformedChunk` before the library sees it.
 * - Tools: the names of the `function.name` of every choice's `delta.tool_calls` in a chunk are
 *   declared before the library reads it (`_vercel.mjs`); a `stream=false` message's call names
 *   are declared for its `generateText`.
 * - Errors: a chunk with an `error` member is raised as `StreamError` carrying the chunk
 *   (`_glue.raiseOnErrorChunk`) once the library has read it: its provider turns it into an
 *   `error` part (`createOpenAIProviderStreamError`). Any other `error` part the library makes
 *   while reading a chunk (a chunk its schema refuses: `TypeValidationError`) is that chunk's
 *   `MalformedChunk`, with the library's text (and the library's error as its `cause`).
 * - The message (rendered at read time, `_glue.lazyRoot`), from the parts: `role:
 *   "assistant"`; `content` the `text-delta` texts joined, `null` when the library gave no text
 *   part (the provider sends a refusal's text as text parts too: there is no `refusal` key);
 *   `tool_calls` when it gave a tool part, one `{id, type: "function", function: {name,
 *   arguments}}` per call in the library's order of calls (`_vercel.mjs` `tools`: the order of
 *   its `tool-call` parts, then calls not finished yet), `arguments` the argument text the
 *   library streamed (`tool-input-delta`, `""` when none came: the provider streams every
 *   piece it reads; a call without `tool-input-start`: its `tool-call` input). Every other
 *   key a delta of choice 0 carried (`refusal`, `audio`, ...) is written as `null` (the library
 *   keeps none of them), and `null`-valued keys no delta carried are left out
 *   (`_glue.noteKeys` / `_glue.wireKeysOnly`, as harnesses/langchain does). The message
 *   carries `mcs_ai_sdk` (always, `[]` while no call came): per call, the library's parse
 *   (`{input, error}`, `_vercel.mjs` `libraryParse`), a top-level `mcs_*` annotation PARITY
 *   leaves aside, so that `extract` reads the calls as the library's `tool-call` parts gave
 *   them, and a streamed message is never read as a `stream=false` one.
 * - Per-chunk members: the message is the parts the library had given when the chunk was
 *   read; the `tool-call` parts come only when the body ends (provider-utils
 *   `StreamingToolCallTracker` finishes its calls in `flush`), and `finish` then too: before
 *   that a call is in the message with the argument text streamed so far and, in
 *   `mcs_ai_sdk`, no parse of the library (an error call).
 * - `extract`: a message with `mcs_ai_sdk`: each `tool_calls` entry with the library's parse
 *   (a call whose library input is no object is a call with `error`; `raw_arguments` the
 *   entry's argument text); a call without a name is given an `error` too. Any other message
 *   (a provider's `stream=false` answer): served as `{id, object: "chat.completion", created,
 *   model, choices: [{index: 0, message, finish_reason}]}` (`finish_reason` `"tool_calls"` when
 *   it has `tool_calls`, else `"stop"`) and read by `generateText`: each `tool-call` part of
 *   its `content`, the same way (`raw_arguments` the message's argument text of the call with
 *   that id; a message the library's response schema refuses is a `ValueError` naming its
 *   error, as `generateText` throws for it); `generateText` runs once per message
 *   (`_vercel.mjs` `oncePerMessage`: a caller reads a response once, so the ids the library
 *   makes up for calls without one do not change between the suite's readings).
 * - Display text: the `text-delta` texts of the parts a chunk gave.
 * - Recognition, `isDone` (`_glue.chatIsDone`, read on the wire chunk), `contentText`,
 *   `formingName`: `_glue.ChatAdapter`; the continuation: `_glue.continuation` given the
 *   calls of `extract` (asynchronous here).
 * - Glue check: `glueView` (`_vercel.mjs` `libraryView` / `adapterView`; `stop` the library's
 *   raw finish reason beside the wire's last `finish_reason` of choice 0 the adapter accepted);
 *   the differences the adapter knows of are `GLUE_LISTED`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";
import { createRequire } from "node:module";

import * as glue from "./_glue.mjs";
import { sseBytes } from "./_live.mjs";
import { LiveParts, adapterView, argumentText, endableFetch, libraryParse, libraryView, oncePerMessage, toolsOf } from "./_vercel.mjs";

const { BridgeError, isObject } = glue;
const WHO = "ai streamText (@ai-sdk/openai chat)";
const MARK = "mcs_ai_sdk";
const VERSION = createRequire(import.meta.url)("ai/package.json").version;
const BASE = "http://openai.harness.invalid/v1";
let provider = null;

const chunkBytes = (chunk) => sseBytes(chunk, false, glue.formatLine);

/** The tool names a chunk holds: every choice's `delta.tool_calls[].function.name`. */
export function namesOf(chunk) {
  const choices = isObject(chunk) && Array.isArray(chunk.choices) ? chunk.choices : [];
  return choices.flatMap((c) => (isObject(c) && isObject(c.delta) && Array.isArray(c.delta.tool_calls) ? c.delta.tool_calls : []))
    .map((t) => (isObject(t) && isObject(t.function) ? t.function.name : null)).filter((n) => typeof n === "string");
}

/** Whether the response ends after `chunk`: every choice index seen (in `open`) has its
 * `finish_reason`. */
function allFinished(chunk, open) {
  for (const c of isObject(chunk) && Array.isArray(chunk.choices) ? chunk.choices : []) {
    if (!isObject(c)) continue;
    const key = String(c.index ?? 0);
    if (!open.has(key)) open.set(key, false);
    if (c.finish_reason !== null && c.finish_reason !== undefined) open.set(key, true);
  }
  return open.size > 0 && [...open.values()].every(Boolean);
}

/** The library's error part for a chunk, as the protocol's error. */
function refusal(error, chunk) {
  try {
    glue.raiseOnErrorChunk(chunk, WHO);
  } catch (streamError) {
    return streamError;
  }
  const refused = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
  refused.cause = error;
  return refused;
}

export class VercelOpenAIChatStrategy extends glue.ChatAdapter {
  who = WHO;
  implementation = { name: "vercel-ai-openai-chat", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !isObject(chunk)) {
      throw new BridgeError("MalformedChunk", `${WHO}: a chunk is a JSON object or "[DONE]", got ${glue.typeName(chunk)}`);
    }
    if (state.parts === undefined) {
      provider ??= createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch: endableFetch });
      state.parts = new LiveParts(provider.chat("gpt-4o"), chunkBytes, namesOf);
      state.open = new Map();
    }
    if (!done) glue.noteKeys(glue.choice0Deltas(chunk), state.keys ??= new Set(), state.callKeys ??= new Set());
    const last = done || allFinished(chunk, state.open);
    const { text, error } = await state.parts.feed(chunk, last);
    glue.lazyRoot(acc, () => render(state));
    if (error !== null) throw refusal(error, chunk);
    return text;
  }

  async extract(message) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${WHO}.extract: expects an assistant message dict, got ${glue.typeName(message)}`);
    if (Array.isArray(message[MARK])) return fromAnnotation(message);
    return generated(message);
  }
  /** `_glue.continuation`, given the calls of this (asynchronous) `extract`. */
  async resultMessages(message, records) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${WHO}: the message is a dict, got ${glue.typeName(message)}`);
    return glue.continuation(WHO, message, records, await this.extract(message));
  }
}

function render(state) {
  const { parts, keys, callKeys } = state;
  const message = Object.fromEntries([...(keys ?? [])].map((k) => [k, null]));
  Object.assign(message, { role: "assistant", content: parts.content });
  const tools = parts.tools;
  if (tools.length) {
    message.tool_calls = tools.map((b) => ({ id: b.id, type: "function", function: { name: b.toolName ?? "", arguments: argumentText(b, true) } }));
  }
  const out = glue.wireKeysOnly(message, keys ?? new Set(), new Set([...(callKeys ?? []), "type"]));
  out[MARK] = tools.map(libraryParse);
  return out;
}

function call(entry, parse, n) {
  const fn = isObject(entry) ? entry.function : undefined;
  const name = isObject(fn) && typeof fn.name === "string" ? fn.name : "";
  const raw = isObject(fn) && typeof fn.arguments === "string" ? fn.arguments : null;
  const id = isObject(entry) && typeof entry.id === "string" ? entry.id : null;
  let error = isObject(parse) ? parse.error ?? null : `tool_calls[${n}] has no parse of the library`;
  if (error === null && !glue.nonEmpty(name)) error = "the tool call has no function name";
  return glue.toolCall(name, error === null && isObject(parse.input) ? parse.input : {}, id, raw, error);
}

function fromAnnotation(message) {
  const entries = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return entries.map((entry, n) => call(entry, message[MARK][n], n));
}

/** A `stream=false` message as `generateText` reads it from the JSON body that carries it. */
const generated = oncePerMessage(async (message) => {
  const answer = { id: "chatcmpl-mcs", object: "chat.completion", created: 0, model: "gpt-4o",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: message.tool_calls ? "tool_calls" : "stop" }] };
  const fetch = async () => new Response(glue.formatLine(answer), { status: 200, headers: { "content-type": "application/json" } });
  let result;
  try {
    const names = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((e) => (isObject(e) && isObject(e.function) ? e.function.name : null));
    result = await generateText({ model: createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch }).chat("gpt-4o"), prompt: "hi", maxRetries: 0,
      tools: toolsOf(names) });
  } catch (error) {
    throw new BridgeError("ValueError", `${WHO}.extract: generateText refused the message: ${glue.errorText(error)}`);
  }
  const entries = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  return result.content.filter((p) => p.type === "tool-call").map((part, n) => {
    const parse = libraryParse({ call: part });
    const sent = entries.find((e) => e.id === part.toolCallId)?.function?.arguments;
    const args = typeof sent === "string" ? sent : typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? null);
    return call({ id: part.toolCallId, function: { name: part.toolName, arguments: args } }, parse, n);
  });
});

/** The differences between the library's own output and the adapter's message the adapter
 * knows of (harnesses/js/glue_check.mjs), each with why. */
export const GLUE_LISTED = {
  "calls.count": "a stream cut before the response ended keeps its body open (the suite gives no end of the connection), so a call whose arguments never parsed has no tool-call part yet and is in the message as an error call; the library view ends the body after the last chunk, and the library then finishes the call",
  "calls.arguments": "a call the library has not finished (no tool-call part: the body of a cut stream is not ended) is an error call whose raw text is the argument text streamed so far; the library, its body ended, parses that text at the end",
  "calls.id": "a call that comes without a usable id gets an id the library makes up (generateId) per stream, so the library view's run and the adapter's run of the same chunks give two ids",
  "stop": "the adapter's stop is the wire's last finish_reason of choice 0 (the message holds none); the library's is the raw finish reason of its finish part, which comes only when the body ended",
  "refused.type": "a chunk that is no JSON object and no \"[DONE]\" is refused by the adapter with MalformedChunk before the library sees it (no SSE event carries it as one chunk); the library, handed its line, makes its own error part",
};

/** The library's own output and the adapter's message for one case (`null` for a message case). */
export async function glueView(caseObj) {
  if (!Array.isArray(caseObj?.chunks)) return null;
  const fetch = endableFetch;
  const model = createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch }).chat("gpt-4o");
  const library = await libraryView(model, caseObj.chunks, chunkBytes, namesOf,
    (parts) => parts.finish?.finishReason?.raw ?? parts.finish?.rawFinishReason ?? null,
    (_, chunks) => chunks.some((c) => isObject(c) && c.error));
  const wireStop = (_, fed) => {
    let stop = null;
    for (const chunk of fed) for (const c of glue.isObject(chunk) && Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (isObject(c) && Number(c.index ?? 0) === 0 && c.finish_reason !== null && c.finish_reason !== undefined) stop = c.finish_reason;
    }
    return stop;
  };
  return { library, adapter: await adapterView(new VercelOpenAIChatStrategy(), caseObj.chunks, wireStop) };
}

if (glue.isMain(import.meta.url)) glue.serve(new VercelOpenAIChatStrategy());
