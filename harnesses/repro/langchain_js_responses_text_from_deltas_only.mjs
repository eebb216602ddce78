// LangChain.js's ChatOpenAI on the Responses API (`useResponsesApi: true`) builds a streamed
// answer's text from `response.output_text.delta` events only: text an event carries whole
// (`response.output_text.done`, `response.content_part.done`, `response.output_item.done`, the
// output of `response.completed`) never reaches its chunks. A stream whose message text comes in
// `output_text.done` and the completed response, with no delta, sums to an empty text; the
// official SDK's `responses.stream(...)` gives the text, and so does LangChain.js's own
// stream=false path (`llm.invoke(...)` over the completed response).
// Run: node langchain_js_responses_text_from_deltas_only.mjs (exits 1 while the summed stream's
// text differs from the SDK's).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const base = { id: "resp_mcs", object: "response", created_at: 0, model: "gpt-4o" };
const part = { type: "output_text", text: "Hello", annotations: [] };
const item = { id: "msg_mcs", type: "message", status: "completed", role: "assistant", content: [part] };
const events = [
  { type: "response.created", response: { ...base, status: "in_progress", output: [] }, sequence_number: 0 },
  { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] }, sequence_number: 1 },
  { type: "response.content_part.added", item_id: "msg_mcs", output_index: 0, content_index: 0, part: { ...part, text: "" }, sequence_number: 2 },
  { type: "response.output_text.done", item_id: "msg_mcs", output_index: 0, content_index: 0, text: "Hello", sequence_number: 3 },
  { type: "response.content_part.done", item_id: "msg_mcs", output_index: 0, content_index: 0, part, sequence_number: 4 },
  { type: "response.output_item.done", output_index: 0, item, sequence_number: 5 },
  { type: "response.completed", response: { ...base, status: "completed", output: [item] }, sequence_number: 6 },
];
const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const final = { ...base, status: "completed", output: [item] };
const fetch = async (_url, init) => (JSON.parse(init.body).stream === true
  ? new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } })
  : new Response(JSON.stringify(final), { status: 200, headers: { "content-type": "application/json" } }));

const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, useResponsesApi: true, configuration: { fetch } });
let summed;
for await (const piece of await llm.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);
const invoked = await llm.invoke("hi");

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.responses.stream({ model: "gpt-4o", input: "hi" }).finalResponse()).output_text;

console.log("langchain-js llm.stream() summed, text:", JSON.stringify(summed.text));
console.log("langchain-js llm.invoke(), text:", JSON.stringify(invoked.text));
console.log("openai (npm) responses.stream, output_text:", JSON.stringify(official));
console.log(`the summed stream keeps the text: ${summed.text === official}`);
process.exit(summed.text === official ? 0 : 1);
