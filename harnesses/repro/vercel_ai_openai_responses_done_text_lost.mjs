// The Vercel AI SDK's OpenAI Responses model hands its caller the text of `output_text.delta`
// events only: text that the provider sends in a message's `response.output_text.done` (or
// `content_part.done`, `output_item.done`, `response.completed`) beyond what its deltas carried
// never reaches `streamText`'s text. OpenAI's recorded two-message stream (openai-phase-1 in
// mcs-conformance's corpus) is such a stream: its `output_text.done` events carry more text than
// its deltas. The official SDK, the openai package's `responses.stream(...)`, returns the done
// text. The events below are those events' shapes with short values; both libraries read the
// same bytes through their `fetch` option.
// Run: node vercel_ai_openai_responses_done_text_lost.mjs (exits 1 while the done text is lost).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import OpenAI from "openai";

const response = (status, output) => ({ id: "resp_1", object: "response", created_at: 1760000000, status, model: "gpt-5",
  output, error: null, incomplete_details: null, usage: null });
const message = (text, status) => ({ id: "msg_1", type: "message", status, role: "assistant",
  content: text === null ? [] : [{ type: "output_text", text, annotations: [] }] });
const events = [
  { type: "response.created", sequence_number: 0, response: response("in_progress", []) },
  { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: message(null, "in_progress") },
  { type: "response.content_part.added", sequence_number: 2, output_index: 0, item_id: "msg_1", content_index: 0,
    part: { type: "output_text", text: "", annotations: [] } },
  { type: "response.output_text.delta", sequence_number: 3, output_index: 0, item_id: "msg_1", content_index: 0, delta: "Got it" },
  { type: "response.output_text.done", sequence_number: 4, output_index: 0, item_id: "msg_1", content_index: 0,
    text: "Got it — checking the sources now." },
  { type: "response.content_part.done", sequence_number: 5, output_index: 0, item_id: "msg_1", content_index: 0,
    part: { type: "output_text", text: "Got it — checking the sources now.", annotations: [] } },
  { type: "response.output_item.done", sequence_number: 6, output_index: 0, item: message("Got it — checking the sources now.", "completed") },
  { type: "response.completed", sequence_number: 7, response: response("completed", [message("Got it — checking the sources now.", "completed")]) },
];
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const result = streamText({ model: createOpenAI({ apiKey: "sk-test", fetch }).responses("gpt-5"), prompt: "news?", onError: () => {} });
for await (const part of result.fullStream) void part;
const ours = await result.text;

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.responses.stream({ model: "gpt-5", input: "news?" }).finalResponse()).output_text;

console.log(`ai streamText (@ai-sdk/openai responses) text: ${JSON.stringify(ours)}`);
console.log(`openai (npm) responses.stream output_text: ${JSON.stringify(official)}`);
console.log(`the AI SDK keeps the done text: ${ours === official}`);
process.exit(ours === official ? 0 : 1);
