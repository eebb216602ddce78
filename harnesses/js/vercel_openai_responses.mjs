/**
 * The Vercel AI SDK (`ai`'s `streamText`) over `@ai-sdk/openai`'s Responses model as an
 * `openai-responses` strategy, served to the suite through the bridge (harness id
 * vercel-ai-openai-responses).
 *
 * The library reads, parses and accumulates, on its documented path: `createOpenAI({ fetch,
 * apiKey, baseURL }).responses("gpt-4o")` (@ai-sdk/openai "Responses Models") given to
 * `streamText`, its `fullStream` read part by part (`_vercel.mjs`); a `stream=false` response
 * is read by `generateText` on the same model over the JSON body. The AI SDK keeps no response
 * object: its caller sees `text-*`, `reasoning-*`, `tool-input-*`, `tool-call`, `finish`,
 * `finish-step` and `error` parts, so the native message is built from those parts by the glue
 * below, and holds only what they carry (no `created_at`, `usage`, `tools`, ... of the
 * response envelope: PARITY cannot hold for this library).
 *
 * Glue choices (everything the adapter decides itself; the feed's are `_vercel.mjs`'s):
 * - Wire: each event as `event: <type>\ndata: <json>\n\n` (`_live.mjs` `sseBytes`, named),
 *   `"[DONE]"` as sent; the body ends after `response.completed`, `response.incomplete` or
 *   `response.failed` (`_vercel.mjs`). An event that is no JSON object is refused with
 *   `MalformedChunk` before the library sees it.
 * - Tools: the `name` of an event's `item` and of its `response.output` items are declared
 *   before the library reads the event (`_vercel.mjs`); a `stream=false` response's item names
 *   are declared for its `generateText`.
 * - Errors: an `error` or `response.failed` event raises `StreamError` carrying the event once
 *   the library has read it (as openai_responses.mjs does; the library makes an `error` part of
 *   the first and a `finish` with reason `error` of the second). Any other `error` part the
 *   library makes while reading an event (one its schema refuses) is that event's
 *   `MalformedChunk`, with the library's text (its error the `cause`).
 * - The message (rendered at read time, `_glue.lazyRoot`): `{object: "response", id, model,
 *   status, output}`: `id` / `model` from the library's response metadata (`finish-step`'s
 *   `response.id` / `modelId`; absent before), `status` `"incomplete"` once the library gave its
 *   `finish` with reason `length` / `content-filter`, `"failed"` with reason `error`,
 *   `"completed"` with any other, `"in_progress"` before it; `output` one item per block the
 *   library started, in its order: text parts as a `message` item (`id` the part's
 *   `providerMetadata.openai.itemId`; text parts of one item are the `output_text` parts of one
 *   `message`, `annotations: []`), reasoning as a `reasoning` item with one `summary_text` per
 *   reasoning part, and the calls, in the slots where the library started calls, in the
 *   library's order of calls (`_vercel.mjs` `tools`: the order of its `tool-call` parts, which
 *   is the order the calls completed, then calls not finished yet), each as a `function_call` item (`id` the itemId, `call_id` the
 *   library's `toolCallId`, `name`, `arguments` the argument text it streamed, `status`
 *   `"completed"` once its `tool-call` part came, else `"in_progress"`). Provider-executed
 *   calls are left out (no function call of the caller). The message carries `mcs_ai_sdk`
 *   (always, `[]` while no call came): per call item, the library's parse (`_vercel.mjs`
 *   `libraryParse`), a top-level `mcs_*` annotation PARITY leaves aside, so a streamed
 *   response is never read as a `stream=false` one.
 * - `extract`: with `mcs_ai_sdk`, each `function_call` item with the library's parse (a call
 *   with `error` when the library's input is no object, the item's status is not `completed`,
 *   or its name / call_id is no non-empty string); any other message (a provider's response) is
 *   served as the JSON body and read by `generateText`: each `tool-call` part of its `content`,
 *   the same way (`generateText` runs once per message, `_vercel.mjs` `oncePerMessage`). A call the library started with `inputEncoding: "text"` (a custom tool's:
 *   the provider's `tool-input-start` for a `custom_tool_call`) is rendered as a
 *   `custom_tool_call` item with `input` the library's input text and read as `{"input":
 *   input}` (the library hands that input JSON-encoded and decodes it back to the text).
 * - Display text: the `text-delta` texts of the parts an event gave.
 * - Recognition, `isDone`, `contentText`, `formingName` and the continuation: those of
 *   openai_responses.mjs (`OpenAIResponsesStrategy`), which read the message's output items.
 * - Glue check: `glueView` (`_vercel.mjs` `libraryView` / `adapterView`; `stop` the status the
 *   library's finish gives by the rule above, beside the message's `status`); the differences
 *   the adapter knows of are `GLUE_LISTED`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";
import { createRequire } from "node:module";

import * as glue from "./_glue.mjs";
import { sseBytes } from "./_live.mjs";
import { OpenAIResponsesStrategy } from "./openai_responses.mjs";
import { LiveParts, adapterView, argumentText, endableFetch, libraryParse, libraryView, oncePerMessage, toolsOf } from "./_vercel.mjs";

const { BridgeError, isObject, nonEmpty } = glue;
const WHO = "ai streamText (@ai-sdk/openai responses)";
const MARK = "mcs_ai_sdk";
const VERSION = createRequire(import.meta.url)("ai/package.json").version;
const BASE = "http://openai.harness.invalid/v1";
const LAST = new Set(["response.completed", "response.incomplete", "response.failed"]);
const CUT = new Set(["length", "content-filter"]);
const CALLS = new Set(["function_call", "custom_tool_call"]);
let provider = null;

const eventBytes = (chunk) => sseBytes(chunk, true, glue.formatLine);

/** The tool names an event holds: its `item`'s `name` and those of its `response.output` items. */
export function namesOf(chunk) {
  if (!isObject(chunk)) return [];
  const items = [chunk.item, ...(isObject(chunk.response) && Array.isArray(chunk.response.output) ? chunk.response.output : [])];
  return items.filter(isObject).map((i) => i.name).filter((n) => typeof n === "string");
}

/** The status a finish gives (see the header): `null` finish is `"in_progress"`. */
const statusOf = (finish) => (finish === null ? "in_progress" : CUT.has(finish.finishReason) ? "incomplete"
  : finish.finishReason === "error" ? "failed" : "completed");

export class VercelOpenAIResponsesStrategy extends OpenAIResponsesStrategy {
  implementation = { name: "vercel-ai-openai-responses", version: VERSION, language: "javascript" };

  async accumulate(acc, chunk) {
    const state = acc.state;
    const done = typeof chunk === "string" && chunk.trim() === "[DONE]";
    if (!done && !isObject(chunk)) throw new BridgeError("MalformedChunk", `${WHO}: an event is a JSON object, got ${glue.typeName(chunk)}`);
    if (state.parts === undefined) {
      provider ??= createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch: endableFetch });
      state.parts = new LiveParts(provider.responses("gpt-4o"), eventBytes, namesOf);
    }
    const { text, error, read } = await state.parts.feed(chunk, !done && LAST.has(chunk.type));
    glue.lazyRoot(acc, () => render(state.parts));
    if (read && !done && (chunk.type === "error" || chunk.type === "response.failed")) {
      throw new BridgeError("StreamError", `${WHO}: the provider reported an error in the stream: ${chunk.type}`, chunk);
    }
    if (error !== null) {
      const refused = new BridgeError("MalformedChunk", `${WHO} raised ${glue.errorText(error)}`);
      refused.cause = error;
      throw refused;
    }
    return text;
  }

  async extract(message) {
    if (!isObject(message) || !Array.isArray(message.output)) {
      throw new BridgeError("ValueError", `${WHO}.extract: expects a response object with an output list, got ${glue.typeName(message)}`);
    }
    if (Array.isArray(message[MARK])) {
      const calls = message.output.filter((i) => isObject(i) && CALLS.has(i.type));
      return calls.map((item, n) => call(item, message[MARK][n]));
    }
    return generated(message);
  }
}

function itemId(block) {
  const id = block.providerMetadata?.openai?.itemId;
  return typeof id === "string" ? id : null;
}

function render(parts) {
  const response = { object: "response" };
  if (parts.metadata?.id !== undefined) response.id = parts.metadata.id;
  if (parts.metadata?.modelId !== undefined) response.model = parts.metadata.modelId;
  response.status = statusOf(parts.finish);
  const output = [];
  const parses = [];
  let message = null;
  const calls = parts.tools[Symbol.iterator](); // each call slot takes the next call in the library's order
  for (const started of parts.blocks) {
    const block = started.kind === "tool" ? calls.next().value : started;
    if (block.kind === "compaction") continue;
    if (block.kind === "text") {
      const id = itemId(block);
      if (message === null || message.id !== id) {
        message = { id, type: "message", role: "assistant", status: "completed", content: [] };
        output.push(message);
      }
      message.content.push({ type: "output_text", text: block.text, annotations: [] });
      continue;
    }
    message = null;
    if (block.kind === "reasoning") {
      output.push({ id: itemId(block), type: "reasoning", summary: [{ type: "summary_text", text: block.text }] });
    } else if (block.providerExecuted || block.call?.providerExecuted) {
      continue;
    } else if (block.inputEncoding === "text") { // a custom tool's call: its input is free text
      const input = typeof block.call?.input === "string" ? block.call.input : block.input ?? "";
      output.push({ id: itemId(block), type: "custom_tool_call", call_id: block.id, name: block.toolName ?? "", input,
        status: block.call ? "completed" : "in_progress" });
      parses.push(block.call ? { input: { input }, error: null } : libraryParse(block));
    } else {
      output.push({ id: itemId(block), type: "function_call", call_id: block.id, name: block.toolName ?? "",
        arguments: argumentText(block), status: block.call ? "completed" : "in_progress" });
      parses.push(libraryParse(block));
    }
  }
  response.output = output;
  response[MARK] = parses;
  return response;
}

function call(item, parse) {
  const name = typeof item.name === "string" ? item.name : "";
  const payload = item.type === "custom_tool_call" ? item.input : item.arguments;
  const raw = typeof payload === "string" ? payload : null;
  let error = isObject(parse) ? parse.error ?? null : "no parse of the library for this call";
  const status = item.status || "completed";
  if (error === null && status !== "completed") error = `the call item's status is '${status}'`;
  if (error === null && !nonEmpty(name)) error = "the call has no name";
  if (error === null && !nonEmpty(item.call_id)) error = "the call has no call_id, so no result can answer it";
  return glue.toolCall(name, error === null ? parse.input : {}, typeof item.call_id === "string" ? item.call_id : null, raw, error);
}

/** A `stream=false` response as `generateText` reads it from the JSON body that carries it. */
const generated = oncePerMessage(async (message) => {
  const fetch = async () => new Response(glue.formatLine(message), { status: 200, headers: { "content-type": "application/json" } });
  let result;
  try {
    const names = message.output.filter(isObject).map((i) => i.name);
    result = await generateText({ model: createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch }).responses("gpt-4o"), prompt: "hi", maxRetries: 0,
      tools: toolsOf(names) });
  } catch (error) {
    throw new BridgeError("ValueError", `${WHO}.extract: generateText refused the response: ${glue.errorText(error)}`);
  }
  const items = new Map(message.output.filter(isObject).map((i) => [i.call_id, i]));
  return result.content.filter((p) => p.type === "tool-call" && !p.providerExecuted).map((part) => {
    const item = items.get(part.toolCallId) ?? {};
    if (item.type === "custom_tool_call") { // the library hands a custom tool's input as a JSON string
      const input = typeof part.input === "string" ? part.input : null;
      return call({ ...item, call_id: part.toolCallId, name: part.toolName },
        input === null ? libraryParse({ call: part }) : { input: { input }, error: null });
    }
    const raw = typeof item.arguments === "string" ? item.arguments : typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? null);
    return call({ ...item, call_id: part.toolCallId, name: part.toolName, arguments: raw }, libraryParse({ call: part }));
  });
});

/** The differences between the library's own output and the adapter's message the adapter
 * knows of (harnesses/js/glue_check.mjs), each with why. */
export const GLUE_LISTED = {
  "calls.count": "a stream cut before its last event keeps its body open (the suite gives no end of the connection), so a call the library started but has not finished is in the message as an error call (status in_progress); the library, its body ended after the case's last chunk, gives no call for it",
  "calls.arguments": "a custom tool's call is read as {\"input\": text} (a call's arguments are an object), where the library hands the text as the call's input",
  "stop": "the body of a stream cut before its last event is not ended (see calls.count), so the message stays in_progress where the library, its body ended, finishes; and the body ends at the first response.completed / response.incomplete / response.failed, so a second turn after it is past the end",
  "text": "the body ends at the first response.completed / response.incomplete / response.failed (the provider closes the response there), so the text of events after it is not read, where the library view, its body ended after the case's last chunk, reads them",
  "refused.type": "an event that is no JSON object is refused by the adapter with MalformedChunk before the library sees it, and an `error` event or `response.failed` is raised as StreamError (as openai_responses.mjs does) where the library makes an error part of its own kind",
  "refused": "the body ends at response.completed / response.incomplete / response.failed, so an event after it is not read, where the library view reads it and makes an error part",
};

/** The library's own output and the adapter's message for one case (`null` for a message case). */
export async function glueView(caseObj) {
  if (!Array.isArray(caseObj?.chunks)) return null;
  const model = createOpenAI({ apiKey: "sk-harness", baseURL: BASE, fetch: endableFetch }).responses("gpt-4o");
  const library = await libraryView(model, caseObj.chunks, eventBytes, namesOf, (parts) => statusOf(parts.finish),
    (_, chunks) => chunks.some((c) => isObject(c) && c.type === "error"));
  const adapter = await adapterView(new VercelOpenAIResponsesStrategy(), caseObj.chunks, (message) => message?.status ?? null);
  return { library, adapter };
}

if (glue.isMain(import.meta.url)) glue.serve(new VercelOpenAIResponsesStrategy());
