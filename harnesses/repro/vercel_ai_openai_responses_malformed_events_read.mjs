// The Vercel AI SDK's OpenAI Responses model reads events that address nothing the response
// holds without an error: an arguments delta for an output item that was never added, and a
// text delta for a content part that was never added. It drops the first and shows the second
// as text, and the turn ends as if nothing were wrong. The official SDK, the openai package's
// `responses.stream(...)`, refuses each such stream. Both read the same bytes through their
// `fetch` option; each stream is a short text turn with one such event.
// Run: node vercel_ai_openai_responses_malformed_events_read.mjs (exits 1 while such events are read).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import OpenAI from "openai";

const response = (status, output) => ({ id: "resp_1", object: "response", created_at: 1760000000, status, model: "gpt-4o",
  output, error: null, incomplete_details: null, usage: null });
const message = (text, status) => ({ id: "msg_1", type: "message", status, role: "assistant",
  content: text === null ? [] : [{ type: "output_text", text, annotations: [] }] });
const turn = (odd) => [
  { type: "response.created", response: response("in_progress", []) },
  { type: "response.output_item.added", output_index: 0, item: message(null, "in_progress") },
  odd,
  { type: "response.content_part.added", output_index: 0, item_id: "msg_1", content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
  { type: "response.output_text.delta", output_index: 0, item_id: "msg_1", content_index: 0, delta: "Hello" },
  { type: "response.output_item.done", output_index: 0, item: message("Hello", "completed") },
  { type: "response.completed", response: response("completed", [message("Hello", "completed")]) },
].map((e, n) => ({ ...e, sequence_number: n }));
const streams = {
  "arguments delta for no item": turn({ type: "response.function_call_arguments.delta", output_index: 3, item_id: "fc_none", delta: "{\"a\": 1}" }),
  "text delta for a part never added": turn({ type: "response.output_text.delta", output_index: 0, item_id: "msg_1", content_index: 4, delta: "stray " }),
};

let read = 0;
for (const [name, events] of Object.entries(streams)) {
  const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  const result = streamText({ model: createOpenAI({ apiKey: "sk-test", fetch }).responses("gpt-4o"), prompt: "hi", onError: () => {} });
  const errors = [];
  for await (const part of result.fullStream) if (part.type === "error") errors.push(String(part.error?.message ?? part.error));
  const text = await result.text;
  let official;
  try {
    const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
    official = `output_text ${JSON.stringify((await client.responses.stream({ model: "gpt-4o", input: "hi" }).finalResponse()).output_text)}`;
  } catch (err) {
    official = `${err.constructor.name}: ${err.message}`;
  }
  console.log(`${name}: ai streamText (@ai-sdk/openai responses) text ${JSON.stringify(text)}, error parts ${errors.length}`);
  console.log(`${name}: openai (npm) responses.stream: ${official}`);
  if (errors.length === 0) read += 1;
}
console.log(`the AI SDK refuses such events: ${read === 0}`);
process.exit(read === 0 ? 0 : 1);
