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
 *   `TransformStream` chain is promise-driven and has then run through). Every chunk the suite
 *   feeds before the body ends reaches the library; the adapters refuse only what is no SSE
 *   event at all (a chunk that is no JSON object), before writing it.
 * - End of the body: the AI SDK's event-stream parser skips `data: [DONE]` and reads on until
 *   the body ends (provider-utils `parseJsonEventStream`); its providers emit their last parts
 *   (`finish`, calls still open) when it does. The provider closes the response after its last
 *   event, so the body ends after the chunk the adapter names as the last (`feed(chunk, true)`:
 *   vercel_openai_chat.mjs ends it at `[DONE]` or once every choice the stream opened has its
 *   `finish_reason`, the Responses adapter at `response.completed` / `response.incomplete` /
 *   `response.failed`, the Anthropic one at `message_stop`) and `feed` waits for `fullStream`
 *   to finish. Chunks fed after that are past the end of the response: not read, no text. A
 *   stream that never sends its last event (cut) keeps its body open: the suite gives no end of
 *   the connection, so the library's end-of-body parts never come (calls it never finished
 *   stay without their `tool-call` part).
 * - Tools: the call declares, as a user of `tools` does (ai "Tool Calling": `tools: { name:
 *   tool({ inputSchema }) }`), one tool per name the stream holds, each `tool({ description,
 *   inputSchema: jsonSchema({type: "object", additionalProperties: true}) })` with no `execute`
 *   (the library runs nothing and, `jsonSchema` given no `validate`, checks no input against it):
 *   the names are read from each chunk (`namesOf(chunk)`, the adapter's) before its bytes are
 *   pushed, into the one `tools` object the call holds (the library looks a tool up by name
 *   when its call comes, `getOwn(tools, name)`), so each call reaches the caller as a
 *   `tool-call` part with the library's parse: `input` the parsed object, or `invalid` with the
 *   library's `InvalidToolInputError` and the text as `input` when it does not parse. The
 *   request the provider builds holds the names known when it is sent (the first chunk's).
 * - Errors: an `error` part made while the library read a chunk's bytes is that chunk's
 *   failure; `feed` returns it and the adapter raises it (`StreamError` when the part carries
 *   the provider's error, `MalformedChunk` otherwise, `errorText`). The library reads on after
 *   an `error` part (its providers keep going), and so does the feed.
 * - State: the parts as the library gave them: `blocks` holds `{kind: "text" | "reasoning" |
 *   "compaction", id, text, providerMetadata}` (a text part whose `text-start` carries
 *   `providerMetadata.anthropic.type: "compaction"` is a compaction, as @ai-sdk/anthropic hands
 *   one, so it is no text of the message nor display text) and `{kind: "tool", id, toolName,
 *   input (the `tool-input-delta` texts joined), call (the `tool-call` part, once given),
 *   providerExecuted, inputEncoding (`tool-input-start`'s, `"json"` when absent)}`, in the
 *   order of their `*-start` parts, a `tool-call` without `tool-input-start` adding its block
 *   then; `tools` the tool blocks in the library's order of calls: those whose `tool-call` part
 *   came, in the order those parts came (the AI SDK's `toolCalls` order: for Responses and
 *   Anthropic the order the calls completed), then the calls it has not finished, in the order
 *   it started them; `finish` / `finishStep` the `finish` and `finish-step` parts; `metadata`
 *   the `response` of `finish-step`. `text` is the `text-delta` text of the chunk being fed
 *   (the display text).
 *
 * The glue check (`glueView`, harnesses/js/glue_check.mjs): `libraryView` feeds a case's chunks
 * to a fresh `streamText` directly (every chunk's bytes, the tools of every name in them, the
 * body ended after the last chunk, as the transport ends it) and reads the library's own
 * output: the `text-delta` texts, the `tool-call` parts in their order (`input` as the library
 * gives it), the finish and the first `error` part; `adapterView` feeds the same chunks through
 * the adapter as the suite does and reads its message with its `extract` and `contentText`.
 */
import { jsonSchema, streamText, tool } from "ai";

import { errorText, formatLine, parseLine } from "./_glue.mjs";
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

/** A tool of `name` as a user declares one, accepting any input object (see the header). */
function declaredTool(name) {
  return tool({ description: `the tool ${name}`, inputSchema: jsonSchema({ type: "object", additionalProperties: true }) });
}

export class LiveParts {
  /** `model`: the provider's language model; `sseBytes(chunk)`: the chunk's bytes on the wire;
   * `namesOf(chunk)`: the tool names the chunk holds (declared before its bytes are pushed). */
  constructor(model, sseBytes, namesOf = () => []) {
    this.live = new LiveBody();
    this.sseBytes = sseBytes;
    this.namesOf = namesOf;
    this.toolSet = {};
    this.blocks = [];
    this.byId = new Map();
    this.called = []; // tool blocks in the order of their `tool-call` parts
    this.finish = null;
    this.finishStep = null;
    this.metadata = null;
    this.errors = [];
    this.parts = 0;
    this.text = "";
    this.over = false;
    ENDS.set(this.live.token, () => {});
    this.result = streamText({
      model, prompt: "hi", headers: this.live.headers, maxRetries: 0, tools: this.toolSet,
      onError: () => {}, // errors are read as fullStream's `error` parts
    });
    this.done = (async () => {
      for await (const part of this.result.fullStream) this.#take(part);
    })();
    this.done.catch((error) => { this.errors.push(error); });
    this.live.ended = this.done;
  }

  /** Declare the tools `names` (strings) not declared yet. */
  declare(names) {
    for (const name of names) {
      if (typeof name === "string" && name !== "" && !Object.hasOwn(this.toolSet, name)) this.toolSet[name] = declaredTool(name);
    }
  }

  #block(kind, id, extra) {
    const key = `${kind === "compaction" ? "text" : kind}:${id}`;
    let block = this.byId.get(key);
    if (block === undefined) {
      block = { kind, id, ...extra };
      this.byId.set(key, block);
      this.blocks.push(block);
    }
    return block;
  }

  #take(part) {
    this.parts += 1;
    switch (part.type) {
      case "text-start": case "reasoning-start": {
        const compaction = part.type === "text-start" && part.providerMetadata?.anthropic?.type === "compaction";
        this.#block(compaction ? "compaction" : part.type.split("-")[0], part.id, { text: "", providerMetadata: part.providerMetadata ?? null });
        break;
      }
      case "text-delta": case "reasoning-delta": {
        const block = this.#block(part.type.split("-")[0], part.id, { text: "", providerMetadata: null });
        block.text += part.text ?? "";
        if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
        if (block.kind === "text") this.text += part.text ?? "";
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
        if (block.call === null) this.called.push(block);
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
        break; // start, start-step, tool-error, source, raw, ...
    }
  }

  /** Push one chunk's bytes; `last`: the response ends after it. Returns `{text, error, read}`:
   * the display text of the parts those bytes made, the first `error` part among them, and
   * whether the library read them (false past the end of the body). */
  async feed(chunk, last) {
    if (this.over) return { text: "", error: null, read: false };
    this.text = "";
    const errors = this.errors.length;
    this.declare(this.namesOf(chunk));
    await this.live.push(this.sseBytes(chunk));
    if (last) await this.end();
    return { text: this.text, error: this.errors.length > errors ? this.errors[errors] : null, read: true };
  }

  /** End the body (the provider closing the response) and wait for `fullStream` to finish. */
  async end() {
    if (this.over) return;
    this.over = true;
    ENDS.get(this.live.token)?.();
    await this.done.catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** The tool blocks in the library's order of calls (see the header). */
  get tools() {
    const called = new Set(this.called);
    return [...this.called, ...this.blocks.filter((b) => b.kind === "tool" && !called.has(b))];
  }

  /** The `text` blocks' text, joined; `null` when the library gave no text part. */
  get content() {
    const texts = this.blocks.filter((b) => b.kind === "text");
    return texts.length ? texts.map((b) => b.text).join("") : null;
  }

  /** Every `text-delta` text the library gave, compaction included (its own `text`). */
  get libraryText() {
    const texts = this.blocks.filter((b) => b.kind === "text" || b.kind === "compaction");
    return texts.length ? texts.map((b) => b.text).join("") : null;
  }
}

/** A call's arguments as the library gave them: the argument text it streamed (`tool-input-delta`
 * joined), else the `tool-call` part's input (text as is; a parsed value as JSON). `streamed`:
 * the provider streams every argument piece it holds as `tool-input-delta` (OpenAI chat), so a
 * call it started with `tool-input-start` has the streamed text, `""` included, whatever its
 * `tool-call` part's parse made of it. */
export function argumentText(block, streamed = false) {
  if (typeof block.input === "string" && (streamed || block.input !== "" || block.call === null)) return block.input;
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

/** The `tools` of a `generateText` call that reads a message holding the calls `names`: one
 * declared tool per name, as `LiveParts` declares them for a stream. */
export function toolsOf(names) {
  const tools = {};
  for (const name of names) if (typeof name === "string" && name !== "" && !Object.hasOwn(tools, name)) tools[name] = declaredTool(name);
  return tools;
}

/** The library's parse of a call, for the `mcs_ai_sdk` annotation: `{input, error}`, where
 * `error` is the text of the part's error (an invalid call: its input did not parse, or its tool
 * is not declared), and `input` the parsed object (`null` when the library's input is no object
 * or no call part came). */
export function libraryParse(block) {
  const call = block.call;
  if (call === null || call === undefined) return { input: null, error: "the library gave no tool-call part for it (the stream did not finish it)" };
  const error = call.error;
  const reason = error !== undefined && error !== null ? errorText(error) : call.invalid ? "the library marked the call invalid" : null;
  const input = call.input;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return { input: null, error: reason ?? `the library's input is ${typeof input === "string" ? "text that is no JSON object" : JSON.stringify(input ?? null)}` };
  }
  return { input, error: reason };
}

// -- the glue check (harnesses/js/glue_check.mjs) ----------------------------------------------

/** One view of a case (the BRIEF's V): what one side answered. */
export const view = (text = null, calls = [], stop = null, refused = null) => ({ text, calls, stop, refused });

/** How a view names an error: "provider error" for the provider's error event (the adapter's
 * `StreamError`, the library's error part built from the event), else the library's error name
 * (the cause the adapter's `MalformedChunk` carries), else the adapter's own error type. */
export function refusalName(error, provider = false) {
  if (error === null || error === undefined) return null;
  if (provider || error?.type === "StreamError") return "provider error";
  const own = error?.type !== undefined && error?.cause !== undefined ? error.cause : error; // a BridgeError: the library's cause
  return own?.name || own?.constructor?.name || String(own);
}

/** The library's own answer for `chunks`: a fresh `streamText` over `model`, every chunk's bytes
 * pushed (the tools of every name in them declared first), the body ended after the last one;
 * read from the parts the library gave. `stop(parts)`: the view's stop; `provider(error,
 * chunks)`: whether an error part carries the provider's error. */
export async function libraryView(model, chunks, sseBytes, namesOf, stop, provider) {
  const parts = new LiveParts(model, sseBytes, () => []);
  parts.declare(chunks.flatMap((c) => namesOf(c)));
  for (const chunk of chunks) await parts.feed(chunk, false);
  await parts.end();
  if (parts.errors.length) return view(null, [], null, refusalName(parts.errors[0], provider(parts.errors[0], chunks)));
  const calls = parts.called.filter((b) => !b.providerExecuted && !b.call?.providerExecuted)
    .map((b) => ({ id: b.call.toolCallId, name: b.call.toolName, arguments: b.call.input ?? null }));
  return view(parts.libraryText, calls, stop(parts));
}

/** The adapter's answer for `chunks`: fed through `strategy.accumulate` as the suite feeds them
 * (stopping at the first error it raises), the message read by its `extract` and `contentText`;
 * a call's arguments are its object, or for an error call its raw text when the adapter kept
 * one (the library's `input` of an invalid call is its text). `stop(message, fed)`: the view's stop. */
export async function adapterView(strategy, chunks, stop) {
  const acc = { root: null, state: {} };
  const fed = [];
  for (const chunk of chunks) {
    try {
      await strategy.accumulate(acc, chunk);
    } catch (error) {
      return view(null, [], null, refusalName(error));
    }
    fed.push(chunk);
  }
  const message = acc.root === null ? null : parseLine(formatLine(acc.root));
  if (message === null) return view(null, [], stop(null, fed));
  const calls = (await strategy.extract(message)).map((c) => ({ id: c.id ?? null, name: c.name,
    arguments: c.error === null || c.error === undefined ? c.arguments : c.raw_arguments ?? c.arguments }));
  return view(strategy.contentText(message) ?? null, calls, stop(message, fed));
}
