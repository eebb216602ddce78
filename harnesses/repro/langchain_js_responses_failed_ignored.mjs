// LangChain.js's ChatOpenAI on the Responses API (`useResponsesApi: true`) ignores a
// `response.failed` event: a stream that ends in `response.failed` (status `failed`, error
// `server_error`) after some output text yields chunks whose sum holds the partial text and no
// sign of the failure (no error thrown, no `failed` status, no error in `response_metadata`):
// `convertResponsesDeltaToChatGenerationChunk` makes no chunk of the event. The official SDK's
// `responses.stream(...)` hands the event to its caller (`response.failed`, with the response's
// `status: "failed"` and its `error`). The caller of LangChain cannot tell a failed answer from a
// finished one.
// Run: node langchain_js_responses_failed_ignored.mjs (exits 1 while the summed stream shows no failure).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const response = (status, output, extra = {}) => ({ id: "resp_mcs_fail", object: "response", created_at: 1760000000, status,
  model: "gpt-4.1-2025-04-14", output, ...extra });
const item = { id: "msg_mcs_fail", type: "message", status: "in_progress", role: "assistant", content: [] };
const events = [
  { type: "response.created", response: response("in_progress", []), sequence_number: 0 },
  { type: "response.in_progress", response: response("in_progress", []), sequence_number: 1 },
  { type: "response.output_item.added", output_index: 0, item, sequence_number: 2 },
  { type: "response.content_part.added", item_id: "msg_mcs_fail", output_index: 0, content_index: 0,
    part: { type: "output_text", text: "", annotations: [] }, sequence_number: 3 },
  { type: "response.output_text.delta", item_id: "msg_mcs_fail", output_index: 0, content_index: 0, delta: "Partial ans", sequence_number: 4 },
  { type: "response.failed", sequence_number: 5, response: response("failed",
    [{ ...item, content: [{ type: "output_text", text: "Partial ans", annotations: [] }] }],
    { error: { code: "server_error", message: "The server had an error while processing your request." } }) },
];
const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });

const llm = new ChatOpenAI({ model: "gpt-4.1", apiKey: "sk-test", maxRetries: 0, useResponsesApi: true, configuration: { fetch } });
let summed;
let thrown = null;
try {
  for await (const piece of await llm.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);
} catch (error) {
  thrown = `${error.constructor.name}: ${error.message}`;
}

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const seen = [];
const stream = client.responses.stream({ model: "gpt-4.1", input: "hi" });
stream.on("event", (event) => seen.push(event));
try { await stream.done(); } catch { /* the events it emitted are what its caller saw */ }
const failed = seen.find((e) => e.type === "response.failed");

const meta = summed?.response_metadata ?? {};
console.log("langchain-js llm.stream() summed, text:", JSON.stringify(summed?.text), "thrown:", thrown);
console.log("langchain-js llm.stream() summed, response_metadata.status:", JSON.stringify(meta.status ?? null), "error:", JSON.stringify(meta.error ?? null));
console.log("openai (npm) responses.stream, event response.failed:", JSON.stringify(failed ? { status: failed.response.status, error: failed.response.error } : null));
const shown = thrown !== null || meta.status === "failed" || meta.error != null;
console.log(`LangChain shows the failure: ${shown}`);
process.exit(shown ? 0 : 1);
