/**
 * What the official JavaScript SDKs answer on whole recorded streams, for scripts/sdk_answers.py.
 *
 * Reads one case a line on stdin (`{"id", "format", "chunks"}`, the bridge's JSON) and writes one
 * answer a line on stdout: `{"id", "answer": "folds", "message"}` or `{"id", "answer": "raises",
 * "error": "<Type>: <first line>"}`. Each case is one request on the SDK's own client, on the
 * streaming helper the harnesses drive (openai_chat.mjs, openai_responses.mjs,
 * anthropic_messages.mjs), given a `fetch` that answers with the case's SSE bytes, framed by
 * `_live.mjs`'s `sseBytes`, in one body that ends after the last chunk (a whole response, as the
 * provider sends it; the live feeding of the harnesses is for the suite's mid-stream reads):
 *
 * - openai-chat: `client.chat.completions.stream(...)`, then `finalChatCompletion()`;
 * - openai-responses: `client.responses.stream(...)`, then `finalResponse()`;
 * - anthropic-messages: `client.beta.messages.stream(...)`, then `finalMessage()`.
 *
 * The promise resolving is `folds` (the message: choice 0's `message`, the response, the
 * message); rejecting is `raises`, with the error's class and first line. The message is given
 * with the keys the SDK adds that were never on the wire removed, as the harnesses render it
 * (`_glue.wireKeysOnly` for Chat; for Responses `output_parsed`, `parsed_arguments`, `parsed` and
 * an `output_text` no response on the wire carried; for Messages the `parsed_output` that
 * `finalMessage()` adds, the harness reading the stream's snapshot instead). Nothing is refused or rewritten before the
 * SDK reads it: a chunk the harnesses' glue refuses first (no JSON object, an `error` event)
 * reaches the SDK here.
 *
 *   MCS_BRIDGE_JS="$(mcs-conformance bridge js)" node harnesses/js/sdk_answers.mjs < cases.jsonl
 */
import { createInterface } from "node:readline";

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

import * as glue from "./_glue.mjs";
import { sseBytes } from "./_live.mjs";

const { isObject } = glue;
const NAMED = new Set(["openai-responses", "anthropic-messages"]);
let body = new Uint8Array(0); // the response body of the case being run (one case at a time)

/** The `fetch` given to the clients: every request is answered with the current case's body. */
async function caseFetch() {
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const openai = new OpenAI({ apiKey: "sk-harness", baseURL: "http://openai.harness.invalid/v1", fetch: caseFetch, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: "sk-harness", baseURL: "http://anthropic.harness.invalid", fetch: caseFetch, maxRetries: 0 });

/** The chunks the SDK reads: those before the first `[DONE]` (its stream stops there). */
function read(chunks) {
  const end = chunks.findIndex((c) => typeof c === "string" && c.trim() === "[DONE]");
  return end < 0 ? chunks : chunks.slice(0, end);
}

async function chat(chunks) {
  const keys = new Set();
  const callKeys = new Set();
  for (const chunk of read(chunks)) glue.noteKeys(glue.choice0Deltas(chunk), keys, callKeys);
  const completion = await openai.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], stream: true })
    .finalChatCompletion();
  const choice = (Array.isArray(completion.choices) ? completion.choices : []).find((c) => isObject(c) && c.index === 0);
  return choice === undefined ? {} : glue.wireKeysOnly(isObject(choice.message) ? choice.message : {}, keys, callKeys);
}

async function responses(chunks) {
  const wireText = read(chunks).some((c) => isObject(c) && isObject(c.response) && Object.hasOwn(c.response, "output_text"));
  const response = await openai.responses.stream({ model: "gpt-4o", input: "hi", stream: true }).finalResponse();
  const message = glue.parseLine(glue.formatLine(response));
  delete message.output_parsed;
  if (!wireText) delete message.output_text;
  for (const item of Array.isArray(message.output) ? message.output : []) {
    if (!isObject(item)) continue;
    delete item.parsed_arguments;
    for (const part of Array.isArray(item.content) ? item.content : []) if (isObject(part)) delete part.parsed;
  }
  return message;
}

async function messages(chunks) {
  const wireParsed = chunks.some((c) => isObject(c) && isObject(c.message) && Object.hasOwn(c.message, "parsed_output"));
  const message = await anthropic.beta.messages.stream(
    { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] }).finalMessage();
  const out = glue.parseLine(glue.formatLine(message));
  if (!wireParsed && isObject(out)) delete out.parsed_output; // finalMessage's parse of the text (no output format asked)
  return out;
}

const RUN = { "openai-chat": chat, "openai-responses": responses, "anthropic-messages": messages };

/** The error's class and the first line of its text (lone surrogates escaped). */
function firstLine(error) {
  return glue.errorText(error).split(/\r?\n/u)[0];
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const { id, format, chunks } = glue.parseLine(line);
  body = new Uint8Array(Buffer.concat(chunks.map((c) => sseBytes(c, NAMED.has(format), glue.formatLine))));
  let out;
  try {
    out = { id, answer: "folds", message: await RUN[format](chunks) };
  } catch (error) {
    out = { id, answer: "raises", error: firstLine(error) };
  }
  process.stdout.write(`${glue.formatLine(out)}\n`);
}
