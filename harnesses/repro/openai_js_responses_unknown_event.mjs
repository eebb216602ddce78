// The openai npm package's Responses stream helper stops a whole stream on one event type it
// does not know: `client.responses.stream(...)` rejects with "Unhandled response stream event"
// (its response accumulator: a closed list of event types). OpenAI lists "Adding new
// event types (in either streaming or the Realtime API)" among its backwards-compatible API
// changes, and the Python SDK's `client.responses.stream(...)` skips such an event and returns
// the response (openai-node #1965, the fix of #1964, added `keepalive` to the list and kept the
// error for other types). The stream below is a function call's events (shaped as the API sends
// them, values made short), with one event of a type the SDK does not list after `response.created`.
// Run: node openai_js_responses_unknown_event.mjs (exits 1 while the stream is refused).
// requires: openai@7.59.0, node>=22
import OpenAI from "openai";

const response = (status, output) => ({
  id: "resp_1", object: "response", created_at: 1764000000, status, model: "gpt-5",
  output, parallel_tool_calls: true, tool_choice: "auto", tools: [], error: null,
  incomplete_details: null, instructions: null, metadata: {}, temperature: 1, top_p: 1,
});
const call = (status, args) => ({
  id: "fc_1", type: "function_call", status, arguments: args, call_id: "call_1", name: "get_weather",
});
const events = [
  { type: "response.created", sequence_number: 0, response: response("in_progress", []) },
  { type: "response.some_new_event", sequence_number: 1 },
  { type: "response.output_item.added", sequence_number: 2, output_index: 0, item: call("in_progress", "") },
  { type: "response.function_call_arguments.delta", sequence_number: 3, output_index: 0, item_id: "fc_1", delta: '{"city":' },
  { type: "response.function_call_arguments.delta", sequence_number: 4, output_index: 0, item_id: "fc_1", delta: '"Paris"}' },
  { type: "response.function_call_arguments.done", sequence_number: 5, output_index: 0, item_id: "fc_1", arguments: '{"city":"Paris"}' },
  { type: "response.output_item.done", sequence_number: 6, output_index: 0, item: call("completed", '{"city":"Paris"}') },
  { type: "response.completed", sequence_number: 7, response: response("completed", [call("completed", '{"city":"Paris"}')]) },
];
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

const client = new OpenAI({
  apiKey: "sk-test",
  maxRetries: 0,
  fetch: async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }),
});

const expected = events.at(-1).response.output;
let answer;
try {
  const stream = client.responses.stream({ model: "gpt-5", input: "weather in Paris?", tools: [] });
  const final = await stream.finalResponse();
  answer = final.output.map(({ type, name, call_id, arguments: a }) => ({ type, name, call_id, arguments: a }));
} catch (err) {
  answer = `${err.constructor.name}: ${err.message}`;
}
const want = expected.map(({ type, name, call_id, arguments: a }) => ({ type, name, call_id, arguments: a }));
console.log("openai (npm) responses.stream:", JSON.stringify(answer));
console.log("the response.completed response (what the Python SDK returns):", JSON.stringify(want));
process.exit(JSON.stringify(answer) === JSON.stringify(want) ? 0 : 1);
