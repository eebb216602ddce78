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
 * - Errors: an `error` event raises `StreamError` carrying the event once the library has read
 *   it (its provider makes an `error` part of it, `createAnthropicStreamError`). Any other
 *   `error` part the library makes while reading an event (one its schema refuses) is that
 *   event's `MalformedChunk`, with the library's text.
 * - The message (rendered at read time, `_glue.lazyRoot`): `{type: "message", role:
 *   "assistant", id, model, content, stop_reason, stop_sequence, usage}`: `id` / `model` from
 *   the library's response metadata (`finish-step`'s `response`; absent before),
 *   `stop_reason` the library's raw finish reason (`finish-step`'s `rawFinishReason`; `null`
 *   before), `stop_sequence` and `usage` the raw ones it hands in `finish-step`'s
 *   `providerMetadata.anthropic` (absent before); `content` one block per block the library
 *   started, in its order: `{type: "text", text}`, `{type: "thinking", thinking}` (plus
 *   `signature` when the part's `providerMetadata.anthropic.signature` has one), and each call
 *   not run by the provider as `{type: "tool_use", id, name, input}`, `input` the library's
 *   parsed input once its `tool-call` part came and that is an object, else `{}`.
 *   Provider-executed calls (`server_tool_use`) are left out. The message carries
 *   `mcs_ai_sdk`: per `tool_use` block, the library's parse (`_vercel.mjs` `libraryParse`), a
 *   top-level `mcs_*` annotation PARITY leaves aside.
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
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText } from "ai";
import { createRequire } from "node:module";

import * as glue from "./_glue.mjs";
import { sseBytes } from "./_live.mjs";
import { AnthropicMessagesStrategy } from "./anthropic_messages.mjs";
import { LiveParts, endableFetch, libraryParse, oncePerMessage } from "./_vercel.mjs";

const { BridgeError, isObject } = glue;
const WHO = "ai streamText (@ai-sdk/anthropic)";
const MARK = "mcs_ai_sdk";
const VERSION = createRequire(import.meta.url)("ai/package.json").version;
const BASE = "http://anthropic.harness.invalid/v1";
const MODEL = "claude-sonnet-4-5";
let provider = null;

const eventBytes = (chunk) => sseBytes(chunk, true, glue.formatLine);

export class VercelAnthropicStrategy extends AnthropicMessagesStrategy {
  implementation = { name: "vercel-ai-anthropic", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !isObject(chunk)) throw new BridgeError("MalformedChunk", `${WHO}: an event is a JSON object, got ${glue.typeName(chunk)}`);
    if (state.parts === undefined) {
      provider ??= createAnthropic({ apiKey: "sk-harness", baseURL: BASE, fetch: endableFetch });
      state.parts = new LiveParts(provider(MODEL), eventBytes);
    }
    const { text, error, read } = await state.parts.feed(chunk, !done && chunk.type === "message_stop");
    glue.lazyRoot(acc, () => render(state.parts));
    if (read && !done && chunk.type === "error") {
      const detail = glue.formatLine(chunk.error ?? null);
      throw new BridgeError("StreamError", `${WHO}: the provider reported an error in the stream: ${glue.errorText(detail)}`, chunk);
    }
    if (error !== null) throw new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
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
  for (const block of parts.blocks) {
    if (block.kind === "text") content.push({ type: "text", text: block.text });
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
  if (parses.length) message[MARK] = parses;
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
    result = await generateText({ model: createAnthropic({ apiKey: "sk-harness", baseURL: BASE, fetch })(MODEL), prompt: "hi", maxRetries: 0 });
  } catch (error) {
    throw new BridgeError("ValueError", `${WHO}.extract: generateText refused the message: ${glue.errorText(error)}`);
  }
  const parts = result.content.filter((p) => p.type === "tool-call" && !p.providerExecuted);
  const parses = parts.map((part) => libraryParse({ call: part }));
  const library = { ...message, content: parts.map((part, n) => ({ type: "tool_use", id: part.toolCallId, name: part.toolName,
    input: isObject(parses[n].input) ? parses[n].input : {} })) };
  return read(library).map((c, n) => (c.error === null && parses[n].error !== null ? { ...c, arguments: {}, error: parses[n].error } : c));
});

if (glue.isMain(import.meta.url)) glue.serve(new VercelAnthropicStrategy());
