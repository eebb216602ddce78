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
 *   sent; the body ends after `[DONE]` (`_vercel.mjs`). A chunk that is no JSON object (and no
 *   `"[DONE]"`) is refused with `MalformedChunk` before the library sees it.
 * - Errors: a chunk with an `error` member is raised as `StreamError` carrying the chunk
 *   (`_glue.raiseOnErrorChunk`) once the library has read it: its provider turns it into an
 *   `error` part (`createOpenAIProviderStreamError`). Any other `error` part the library makes
 *   while reading a chunk (a chunk its schema refuses: `TypeValidationError`) is that chunk's
 *   `MalformedChunk`, with the library's text.
 * - The message (rendered at read time, `_glue.lazyRoot`), from the parts: `role:
 *   "assistant"`; `content` the `text-delta` texts joined, `null` when the library gave no text
 *   part (the provider sends a refusal's text as text parts too: there is no `refusal` key);
 *   `tool_calls` when it gave a tool part, one `{id, type: "function", function: {name,
 *   arguments}}` per call in the order the library started them, `arguments` the argument
 *   text the library streamed (`tool-input-delta`; else its `tool-call` input). Every other
 *   key a delta of choice 0 carried (`refusal`, `audio`, ...) is written as `null` (the library
 *   keeps none of them), and `null`-valued keys no delta carried are left out
 *   (`_glue.noteKeys` / `_glue.wireKeysOnly`, as harnesses/langchain does). The message
 *   carries `mcs_ai_sdk`: per call, the library's parse (`{input, error}`, `_vercel.mjs`
 *   `libraryParse`), a top-level `mcs_*` annotation PARITY leaves aside, so that `extract`
 *   reads the calls as the library's `tool-call` parts gave them.
 * - Per-chunk members: the message is the parts the library had given when the chunk was
 *   read; the `tool-call` parts come when the library judges a call finished (the provider's
 *   tool-call tracker: when its argument text parses, or when the body ends), and `finish`
 *   only when the body ends.
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
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";
import { createRequire } from "node:module";

import * as glue from "./_glue.mjs";
import { sseBytes } from "./_live.mjs";
import { LiveParts, argumentText, endableFetch, libraryParse, oncePerMessage } from "./_vercel.mjs";

const { BridgeError, isObject } = glue;
const WHO = "ai streamText (@ai-sdk/openai chat)";
const MARK = "mcs_ai_sdk";
const VERSION = createRequire(import.meta.url)("ai/package.json").version;
const BASE = "http://openai.harness.invalid/v1";
let provider = null;

const chunkBytes = (chunk) => sseBytes(chunk, false, glue.formatLine);

/** The library's error part for a chunk, as the protocol's error. */
function refusal(error, chunk) {
  try {
    glue.raiseOnErrorChunk(chunk, WHO);
  } catch (streamError) {
    return streamError;
  }
  return new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
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
      state.parts = new LiveParts(provider.chat("gpt-4o"), chunkBytes);
    }
    if (!done) glue.noteKeys(glue.choice0Deltas(chunk), state.keys ??= new Set(), state.callKeys ??= new Set());
    const { text, error } = await state.parts.feed(chunk, done);
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
    message.tool_calls = tools.map((b) => ({ id: b.id, type: "function", function: { name: b.toolName ?? "", arguments: argumentText(b) } }));
  }
  const out = glue.wireKeysOnly(message, keys ?? new Set(), new Set([...(callKeys ?? []), "type"]));
  if (tools.length) out[MARK] = tools.map(libraryParse);
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
    result = await generateText({ model: createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch }).chat("gpt-4o"), prompt: "hi", maxRetries: 0 });
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

if (glue.isMain(import.meta.url)) glue.serve(new VercelOpenAIChatStrategy());
