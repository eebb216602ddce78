/**
 * One AI SDK `streamText` fed live, and what it hands its caller part by part: what the three
 * Vercel AI SDK harnesses (vercel_openai_chat.mjs, vercel_openai_responses.mjs,
 * vercel_anthropic.mjs) share.
 *
 * The library reads and parses: `streamText({ model, prompt, headers, maxRetries: 0, onError })`
 * (ai, "Generating Text: streamText"), `model` one of the provider packages' models built with
 * the `fetch` option (`createOpenAI({ fetch, apiKey, baseURL }).chat(id)`, `.responses(id)`,
 * `createAnthropic({ fetch, apiKey, baseURL })(id)`, each provider's "Provider Instance"
 * settings). The caller's view is `result.fullStream`, the documented stream of every part
 * (`TextStreamPart`); a loop reads it as a user's `for await` does and records each part here.
 *
 * Glue choices (everything this file decides itself):
 * - Feed: one request per stream, its body a `_live.mjs` `LiveBody` reached through
 *   `_live.mjs`'s `liveFetch` (the request names it by the `headers` option of `streamText`);
 *   each chunk's SSE bytes are pushed when the suite feeds the chunk, and `feed` returns once
 *   the library has read them and every part it made of them has reached the loop (the push
 *   resolves when the library asks for more bytes, then one macrotask turn: the SDK's
 *   `TransformStream` chain is promise-driven and has then run through).
 * - End of the body: the AI SDK's event-stream parser skips `data: [DONE]` and reads on until
 *   the body ends (provider-utils `parseJsonEventStream`); its providers emit their last parts
 *   (`finish`, calls still open) when it does. A provider ends the response after its last
 *   event, so the body ends after the chunk the adapter names as the last (`[DONE]` for Chat
 *   Completions; `response.completed`, `response.incomplete`, `response.failed` for Responses;
 *   `message_stop` for Anthropic) and `feed` waits for `fullStream` to finish. Chunks fed after
 *   that are not read (they are past the end of the response), and return no text.
 * - No tools are given to `streamText` (the harness does not know the tool names a case
 *   uses), so each call reaches the caller as the library's `tool-call` part marked `invalid`
 *   with `NoSuchToolError` and `input` the library's `safeParseJSON` of the argument text (the
 *   object when it parses, the text otherwise), and a `tool-error` part for the same reason;
 *   adapters read the `tool-call` part's `input` and take the `NoSuchToolError` as what it
 *   is (no registered tool), any other error of the part as the call's error.
 * - Errors: an `error` part made while the library read a chunk's bytes is that chunk's
 *   failure; `feed` returns it and the adapter raises it (`StreamError` when the part carries
 *   the provider's error, `MalformedChunk` otherwise, `errorText`). The library reads on after
 *   an `error` part (its providers keep going), and so does the feed.
 * - State: the parts as the library gave them, merged in the order of their `*-start` parts:
 *   `blocks` holds `{kind: "text" | "reasoning", id, text, providerMetadata}` and `{kind:
 *   "tool", id, toolName, input (the `tool-input-delta` texts joined), call (the `tool-call`
 *   part, once given), providerExecuted, inputEncoding (`tool-input-start`'s, `"json"` when
 *   absent)}`, a `tool-call` without `tool-input-start` adding
 *   its block then; `finish` / `finishStep` the `finish` and `finish-step` parts;
 *   `metadata` the `response` of `finish-step`. `text` is the `text-delta` text of the chunk
 *   being fed (the display text).
 */
import { streamText } from "ai";

import { errorText } from "./_glue.mjs";
import { HEADER, LiveBody, liveFetch } from "./_live.mjs";

const ENDS = new Map(); // live token -> function that ends the body the library is reading

/** The `fetch` given to the provider: `liveFetch`'s response, with a body the adapter can end. */
export async function endableFetch(url, init = {}) {
  const response = await liveFetch(url, init);
  const token = new Headers(init.headers ?? {}).get(HEADER) ?? "";
  if (!response.ok || !ENDS.has(token)) return response;
  const reader = response.body.getReader();
  let end;
  const ended = new Promise((resolve) => { end = resolve; });
  ENDS.set(token, end);
  const body = new ReadableStream({
    async pull(controller) {
      const next = await Promise.race([reader.read(), ended.then(() => null)]);
      if (next === null || next.done) {
        controller.close();
        reader.cancel().catch(() => {});
        return;
      }
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
  return new Response(body, { status: response.status, headers: response.headers });
}

export class LiveParts {
  /** `model`: the provider's language model; `sseBytes(chunk)`: the chunk's bytes on the wire. */
  constructor(model, sseBytes) {
    this.live = new LiveBody();
    this.sseBytes = sseBytes;
    this.blocks = [];
    this.byId = new Map();
    this.finish = null;
    this.finishStep = null;
    this.metadata = null;
    this.errors = [];
    this.parts = 0;
    this.text = "";
    this.over = false;
    ENDS.set(this.live.token, () => {});
    this.result = streamText({
      model, prompt: "hi", headers: this.live.headers, maxRetries: 0,
      onError: () => {}, // errors are read as fullStream's `error` parts
    });
    this.done = (async () => {
      for await (const part of this.result.fullStream) this.#take(part);
    })();
    this.done.catch((error) => { this.errors.push(error); });
    this.live.ended = this.done;
  }

  #block(kind, id, extra) {
    let block = this.byId.get(`${kind}:${id}`);
    if (block === undefined) {
      block = { kind, id, ...extra };
      this.byId.set(`${kind}:${id}`, block);
      this.blocks.push(block);
    }
    return block;
  }

  #take(part) {
    this.parts += 1;
    switch (part.type) {
      case "text-start": case "reasoning-start":
        this.#block(part.type.split("-")[0], part.id, { text: "", providerMetadata: part.providerMetadata ?? null });
        break;
      case "text-delta": case "reasoning-delta": {
        const block = this.#block(part.type.split("-")[0], part.id, { text: "", providerMetadata: null });
        block.text += part.text ?? "";
        if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
        if (part.type === "text-delta") this.text += part.text ?? "";
        break;
      }
      case "text-end": case "reasoning-end": {
        const block = this.byId.get(`${part.type.split("-")[0]}:${part.id}`);
        if (block && part.providerMetadata) block.providerMetadata = part.providerMetadata;
        break;
      }
      case "tool-input-start":
        this.#block("tool", part.id, { toolName: part.toolName, input: "", call: null, ended: false,
          providerExecuted: part.providerExecuted ?? false, providerMetadata: part.providerMetadata ?? null,
          inputEncoding: part.inputEncoding ?? "json" });
        break;
      case "tool-input-delta":
        this.#block("tool", part.id, { toolName: null, input: "", call: null, ended: false }).input += part.delta ?? "";
        break;
      case "tool-input-end": {
        const block = this.byId.get(`tool:${part.id}`);
        if (block) block.ended = true;
        break;
      }
      case "tool-call": {
        const block = this.#block("tool", part.toolCallId, { toolName: part.toolName, input: null, call: null, ended: true });
        block.call = part;
        if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
        if (block.toolName === null || block.toolName === undefined) block.toolName = part.toolName;
        break;
      }
      case "finish-step":
        this.finishStep = part;
        this.metadata = part.response ?? null;
        break;
      case "finish":
        this.finish = part;
        break;
      case "error":
        this.errors.push(part.error);
        break;
      default:
        break; // start, start-step, tool-error (no tool is registered), source, raw, ...
    }
  }

  /** Push one chunk's bytes; `last`: the response ends after it. Returns `{text, error}`: the
   * display text of the parts those bytes made and the first `error` part among them. */
  async feed(chunk, last) {
    if (this.over) return { text: "", error: null, read: false };
    this.text = "";
    const errors = this.errors.length;
    await this.live.push(this.sseBytes(chunk));
    if (last) {
      this.over = true;
      ENDS.get(this.live.token)?.();
      await this.done.catch(() => {});
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { text: this.text, error: this.errors.length > errors ? this.errors[errors] : null, read: true };
  }

  /** The tool blocks, in the order the library started them. */
  get tools() {
    return this.blocks.filter((b) => b.kind === "tool");
  }

  /** The `text` blocks' text, joined; `null` when the library gave no text part. */
  get content() {
    const texts = this.blocks.filter((b) => b.kind === "text");
    return texts.length ? texts.map((b) => b.text).join("") : null;
  }
}

/** A call's arguments as the library gave them: the argument text it streamed (`tool-input-delta`
 * joined), else the `tool-call` part's input (text as is; a parsed value as JSON). */
export function argumentText(block) {
  if (typeof block.input === "string" && (block.input !== "" || block.call === null)) return block.input;
  const input = block.call?.input;
  if (input === undefined || input === null) return block.input ?? "";
  return typeof input === "string" ? input : JSON.stringify(input);
}

/** `read` (an async reading of a `stream=false` message by `generateText`) run once per message,
 * keyed by its JSON text: a caller reads a response once, so the ids the library makes up for
 * calls that came without one stay the same however often the suite asks (the last 512 kept). */
export function oncePerMessage(read) {
  const seen = new Map();
  return (message, ...rest) => {
    const key = JSON.stringify(message);
    if (!seen.has(key)) {
      if (seen.size >= 512) seen.delete(seen.keys().next().value);
      seen.set(key, read(message, ...rest));
    }
    return seen.get(key);
  };
}

/** The library's parse of a call, for the `mcs_ai_sdk` annotation: `{input, error}`, where
 * `error` is the text of an error other than `NoSuchToolError` (no tool is registered), and
 * `input` the parsed object (`null` when the library's input is no object or no call part came). */
export function libraryParse(block) {
  const call = block.call;
  if (call === null || call === undefined) return { input: null, error: "the library gave no tool-call part for it (the stream did not finish it)" };
  const error = call.error;
  const unregistered = error !== undefined && error !== null && (error?.name === "AI_NoSuchToolError"
    || error?.constructor?.name === "NoSuchToolError");
  const reason = error !== undefined && error !== null && !unregistered ? errorText(error) : null;
  const input = call.input;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return { input: null, error: reason ?? `the library's input is ${typeof input === "string" ? "text that is no JSON object" : JSON.stringify(input ?? null)}` };
  }
  return { input, error: reason };
}
