// The Vercel AI SDK's OpenAI Responses model reports a turn's function calls in the order they
// complete, not in the order of the response's output: two calls streamed side by side (output
// items 0 and 1), the second finished first, reach the caller (`toolCalls`, the tool-call parts,
// the assistant message of the next request) second-first. The official SDK, the openai
// package's `responses.stream(...)`, returns them in output order, as the response itself holds
// them. Both read the same bytes through their `fetch` option.
// Run: node vercel_ai_openai_responses_calls_in_completion_order.mjs (exits 1 while the order differs).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";

const call = (id, city, status) => ({ id: `fc_${id}`, type: "function_call", status, call_id: `call_${id}`, name: "get_weather",
  arguments: status === "completed" ? JSON.stringify({ city }) : "" });
const response = (status, output) => ({ id: "resp_1", object: "response", created_at: 1760000000, status, model: "gpt-4o",
  output, error: null, incomplete_details: null, usage: null });
const args = (n, id, city) => [
  { type: "response.function_call_arguments.delta", output_index: n, item_id: `fc_${id}`, delta: JSON.stringify({ city }) },
  { type: "response.function_call_arguments.done", output_index: n, item_id: `fc_${id}`, arguments: JSON.stringify({ city }) },
];
const events = [
  { type: "response.created", response: response("in_progress", []) },
  { type: "response.output_item.added", output_index: 0, item: call("paris", "Paris", "in_progress") },
  { type: "response.output_item.added", output_index: 1, item: call("tokyo", "Tokyo", "in_progress") },
  ...args(0, "paris", "Paris"), ...args(1, "tokyo", "Tokyo"),
  { type: "response.output_item.done", output_index: 1, item: call("tokyo", "Tokyo", "completed") },
  { type: "response.output_item.done", output_index: 0, item: call("paris", "Paris", "completed") },
  { type: "response.completed", response: response("completed", [call("paris", "Paris", "completed"), call("tokyo", "Tokyo", "completed")]) },
].map((e, n) => ({ ...e, sequence_number: n }));
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const tools = { get_weather: tool({ description: "weather", inputSchema: jsonSchema({ type: "object", additionalProperties: true }) }) };
const result = streamText({ model: createOpenAI({ apiKey: "sk-test", fetch }).responses("gpt-4o"), prompt: "weather?", tools, onError: () => {} });
const ours = (await result.toolCalls).map((c) => c.toolCallId);

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.responses.stream({ model: "gpt-4o", input: "weather?" }).finalResponse())
  .output.filter((i) => i.type === "function_call").map((i) => i.call_id);

console.log(`ai streamText (@ai-sdk/openai responses) toolCalls: ${JSON.stringify(ours)}`);
console.log(`openai (npm) responses.stream output: ${JSON.stringify(official)}`);
const same = JSON.stringify(ours) === JSON.stringify(official);
console.log(`the AI SDK keeps the output order: ${same}`);
process.exit(same ? 0 : 1);
