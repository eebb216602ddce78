/**
 * The Vercel AI SDK (`ai`'s `streamText`) over `@ai-sdk/anthropic` as an `anthropic-messages`
 * strategy, served to the suite through the bridge (harness id vercel-ai-anthropic).
 *
 * The library reads, parses and accumulates, on its documented path: `createAnthropic({ fetch,
 * apiKey, baseURL })("claude-sonnet-4-5")` (@ai-sdk/anthropic "Provider Instance") given to
 * `streamText`, its `fullStream` read part by part (`_vercel.mjs`); a `stream=false` message
 * is read by `generateText` on the same model over the JSON body. The AI SDK keeps no
 * Anthropic message: its caller sees `text-*`, `reasoning-*`, `tool-input-*`, `tool-call`,
 * `finish-step`, `finish` and `error` parts, so the native message is built from those parts by
 * the glue below.
 *
 * Glue choices (everything the adapter decides itself; the feed's are `_vercel.mjs`'s):
 * - Wire: each event as `event: <type>\ndata: <json>\n\n` (`_live.mjs` `sseBytes`, named),
 *   `"[DONE]"` as sent; the body ends after `message_stop` (`_vercel.mjs`). An event that is no
 *   JSON object is refused with `MalformedChunk` before the library sees it.
 * - Tools: the `name` of an event's `content_block` is declared before the library reads the
 *   event (`_vercel.mjs`); a `stream=false` message's block names are declared for its
 *   `generateText`.
 * - Errors: an `error` event raises `StreamError` carrying the event once the library has read
 *   it (its provider makes an `error` part of it, `createAnthropicStreamError`). Any other
 *   `error` part the library makes while reading an event (one its schema refuses) is that
 *   event's `MalformedChunk`, with the library's text (its error the `cause`).
 * - The message (rendered at read time, `_glue.lazyRoot`): `{type: "message", role:
 *   "assistant", id, model, content, stop_reason, stop_sequence, usage}`: `id` / `model` from
 *   the library's response metadata (`finish-step`'s `response`; absent before),
 *   `stop_reason` the library's raw finish reason (`finish-step`'s `rawFinishReason`; `null`
 *   before), `stop_sequence` and `usage` the raw ones it hands in `finish-step`'s
 *   `providerMetadata.anthropic` (absent before); `content` one block per block the library
 *   started, in its order: `{type: "text", text}`, `{type: "thinking", thinking}` (plus
 *   `signature` when the part's `providerMetadata.anthropic.signature` has one), a compaction
 *   (a text part the library marks `providerMetadata.anthropic.type: "compaction"`) as
 *   `{type: "compaction", content}` (plus its `signature`), and the calls not run by the
 *   provider, in the slots where the library started calls, in the library's order of calls
 *   (`_vercel.mjs` `tools`: the order of its `tool-call` parts, which come at each block's
 *   `content_block_stop`, then calls not finished yet), each as `{type: "tool_use", id, name,
 *   input}`, `input` the library's parsed input once its `tool-call` part came and that is an
 *   object, else `{}`. Provider-executed calls (`server_tool_use`) are left out. The message
 *   carries `mcs_ai_sdk` (always, `[]` while no call came): per `tool_use` block, the
 *   library's parse (`_vercel.mjs` `libraryParse`), a top-level `mcs_*` annotation PARITY
 *   leaves aside, so a streamed message is never read as a `stream=false` one.
 * - Per-chunk members: the `tool-call` part of a block comes at its `content_block_stop`; before
 *   it the block's input is `{}` in the message (the library hands the argument text only).
 * - `extract`: anthropic_messages.mjs's reading of the `tool_use` blocks (its errors: no
 *   `stop_reason` yet, cut by `max_tokens`, no name or id), and with `mcs_ai_sdk` a block whose
 *   library parse has an error, or came without a `tool-call` part, is a call with that error;
 *   any other message (a provider's `stream=false` answer) is served as the JSON body and read
 *   by `generateText`: each `tool-call` part of its `content`, the same way; `generateText`
 *   runs once per message (`_vercel.mjs` `oncePerMessage`: a caller reads a response once, so
 *   the ids the library makes up for calls without one do not change between the suite's
 *   readings).
 * - Display text: the `text-delta` texts of the parts an event gave.
 * - Recognition, `isDone`, `contentText`, `formingName` and the continuation: those of
 *   anthropic_messages.mjs (`AnthropicMessagesStrategy`), which read the message's blocks.
 * - Glue check: `glueView` (`_vercel.mjs` `libraryView` / `adapterView`; `stop` the library's
 *   raw finish reason beside the message's `stop_reason`); the differences the adapter knows of
 *   are `GLUE_LISTED`.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText } from "ai";
import { createRequire } from "node:module";

import * as glue from "./_glue.mjs";
import { sseBytes } from "./_live.mjs";
import { AnthropicMessagesStrategy } from "./anthropic_messages.mjs";
import { LiveParts, adapterView, endableFetch, libraryParse, libraryView, oncePerMessage, toolsOf } from "./_vercel.mjs";

const { BridgeError, isObject } = glue;
const WHO = "ai streamText (@ai-sdk/anthropic)";
const MARK = "mcs_ai_sdk";
const VERSION = createRequire(import.meta.url)("ai/package.json").version;
const BASE = "http://anthropic.harness.invalid/v1";
const MODEL = "claude-sonnet-4-5";
let provider = null;

const eventBytes = (chunk) => sseBytes(chunk, true, glue.formatLine);

/** The tool names an event holds: its `content_block`'s `name`. */
export function namesOf(chunk) {
  const name = isObject(chunk) && isObject(chunk.content_block) ? chunk.content_block.name : null;
  return typeof name === "string" ? [name] : [];
}

export class VercelAnthropicStrategy extends AnthropicMessagesStrategy {
  implementation = { name: "vercel-ai-anthropic", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !isObject(chunk)) throw new BridgeError("MalformedChunk", `${WHO}: an event is a JSON object, got ${glue.typeName(chunk)}`);
    if (state.parts === undefined) {
      provider ??= createAnthropic({ apiKey: "sk-harness", baseURL: BASE, fetch: endableFetch });
      state.parts = new LiveParts(provider(MODEL), eventBytes, namesOf);
    }
    const { text, error, read } = await state.parts.feed(chunk, !done && chunk.type === "message_stop");
    glue.lazyRoot(acc, () => render(state.parts));
    if (read && !done && chunk.type === "error") {
      const detail = glue.formatLine(chunk.error ?? null);
      throw new BridgeError("StreamError", `${WHO}: the provider reported an error in the stream: ${glue.errorText(detail)}`, chunk);
    }
    if (error !== null) {
      const refused = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
      refused.cause = error;
      throw refused;
    }
    return text;
  }

  async extract(message) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${WHO}.extract: expects a message dict, got ${glue.typeName(message)}`);
    if (!Array.isArray(message[MARK])) return generated(message, (m) => super.extract(m));
    const calls = super.extract(message);
    const parses = message[MARK];
    return calls.map((c, n) => (c.error === null && isObject(parses[n]) && parses[n].error !== null
      ? { ...c, arguments: {}, error: parses[n].error } : c));
  }
}

function render(parts) {
  const message = { type: "message", role: "assistant" };
  if (parts.metadata?.id !== undefined) message.id = parts.metadata.id;
  if (parts.metadata?.modelId !== undefined) message.model = parts.metadata.modelId;
  const content = [];
  const parses = [];
  const calls = parts.tools[Symbol.iterator](); // each call slot takes the next call in the library's order
  for (const started of parts.blocks) {
    const block = started.kind === "tool" ? calls.next().value : started;
    if (block.kind === "text") content.push({ type: "text", text: block.text });
    else if (block.kind === "compaction") {
      const compaction = { type: "compaction", content: block.text };
      const signature = block.providerMetadata?.anthropic?.signature;
      if (typeof signature === "string") compaction.signature = signature;
      content.push(compaction);
    }
    else if (block.kind === "reasoning") {
      const thinking = { type: "thinking", thinking: block.text };
      const signature = block.providerMetadata?.anthropic?.signature;
      if (typeof signature === "string") thinking.signature = signature;
      content.push(thinking);
    } else if (!block.providerExecuted && !block.call?.providerExecuted) {
      const parse = libraryParse(block);
      content.push({ type: "tool_use", id: block.id, name: block.toolName ?? "", input: isObject(parse.input) ? parse.input : {} });
      parses.push(parse);
    }
  }
  message.content = content;
  const step = parts.finishStep;
  message.stop_reason = step?.rawFinishReason ?? null;
  const meta = step?.providerMetadata?.anthropic;
  if (isObject(meta)) {
    if (meta.stopSequence !== undefined) message.stop_sequence = meta.stopSequence;
    if (meta.usage !== undefined && meta.usage !== null) message.usage = meta.usage;
  }
  message[MARK] = parses;
  return message;
}

/** A `stream=false` message as `generateText` reads it from the JSON body that carries it;
 * `read` is anthropic_messages.mjs's reading of the blocks, given the library's inputs. */
const generated = oncePerMessage(async (message, read) => {
  const body = { id: "msg_mcs", model: MODEL, stop_reason: "end_turn", stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 }, ...message };
  const fetch = async () => new Response(glue.formatLine(body), { status: 200, headers: { "content-type": "application/json" } });
  let result;
  try {
    const names = (Array.isArray(message.content) ? message.content : []).map((b) => (isObject(b) ? b.name : null));
    result = await generateText({ model: createAnthropic({ apiKey: "sk-harness", baseURL: BASE, fetch })(MODEL), prompt: "hi", maxRetries: 0,
      tools: toolsOf(names) });
  } catch (error) {
    throw new BridgeError("ValueError", `${WHO}.extract: generateText refused the message: ${glue.errorText(error)}`);
  }
  const parts = result.content.filter((p) => p.type === "tool-call" && !p.providerExecuted);
  const parses = parts.map((part) => libraryParse({ call: part }));
  const library = { ...message, content: parts.map((part, n) => ({ type: "tool_use", id: part.toolCallId, name: part.toolName,
    input: isObject(parses[n].input) ? parses[n].input : {} })) };
  return read(library).map((c, n) => (c.error === null && parses[n].error !== null ? { ...c, arguments: {}, error: parses[n].error } : c));
});

/** The differences between the library's own output and the adapter's message the adapter
 * knows of (harnesses/js/glue_check.mjs), each with why. */
export const GLUE_LISTED = {
  "text": "a compaction block reaches the caller as a text part marked providerMetadata.anthropic.type \"compaction\" (the library's text holds it); the adapter renders it as the compaction block it is, no text of the message",
  "calls.count": "a tool_use block the library started (tool-input-start) but gave no tool-call part for is in the message as an error call: a stream cut before the block's content_block_stop, whose body stays open (the suite gives no end of the connection), and a block whose input never parsed (cut by max_tokens), for which the library, its body ended, gives no call at all",
  "calls.arguments": "a tool_use block's input is an object in the message: a call whose library input is no object (text that does not parse, NaN; an array, which the declared tools' jsonSchema, given no validate, lets through) is an error call with input {}, where the library hands the text or the array; and a call of a cut stream has no tool-call part yet while the library view, its body ended, has one",
  "refused.type": "an event that is no JSON object is refused by the adapter with MalformedChunk before the library sees it; the library, handed its line, makes its own error part",
  "refused": "an `error` event is raised by the adapter as StreamError once the library has read it (the library makes an error part of it and reads on); and the body ends after message_stop (the provider closes the response there), so an event after it is not read, where the library view, its body ended after the case's last chunk, reads it",
};

/** The library's own output and the adapter's message for one case (`null` for a message case). */
export async function glueView(caseObj) {
  if (!Array.isArray(caseObj?.chunks)) return null;
  const model = createAnthropic({ apiKey: "sk-harness", baseURL: BASE, fetch: endableFetch })(MODEL);
  const library = await libraryView(model, caseObj.chunks, eventBytes, namesOf, (parts) => parts.finishStep?.rawFinishReason ?? null,
    (_, chunks) => chunks.some((c) => isObject(c) && c.type === "error"));
  const adapter = await adapterView(new VercelAnthropicStrategy(), caseObj.chunks, (message) => message?.stop_reason ?? null);
  return { library, adapter };
}

if (glue.isMain(import.meta.url)) glue.serve(new VercelAnthropicStrategy());
