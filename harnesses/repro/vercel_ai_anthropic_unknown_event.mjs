// The Vercel AI SDK's Anthropic provider turns one event of a type it does not list into an
// `error` part of `streamText`'s fullStream ("Type validation failed": its chunk schema is a
// closed union of event types), so every consumer of the stream and the caller's `onError`
// get an error for a turn whose events are a complete answer; after `message_start` it then
// reads on (the call and the finish still come), but the same event before `message_start`
// fails the whole call: the stream's only part is an error, and `toolCalls` rejects ("No
// output generated"). Anthropic's API versioning page says it may
// "Add new variants to enum-like output values (for example, streaming event types)", and the
// official SDK, @anthropic-ai/sdk's `messages.stream(...)`, passes over such an event and
// returns the message. The stream below is a tool call's events, shaped as the API sends
// them (values made short), with one event of a type neither library lists after
// `message_start`; both libraries read the same bytes through their own `fetch` option.
// Run: node vercel_ai_anthropic_unknown_event.mjs (exits 1 while the unknown event is an error).
// requires: ai@7.0.173, @ai-sdk/anthropic@4.0.105, @anthropic-ai/sdk@1.16.0, node>=22
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { streamText } from "ai";

const events = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
    content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: "some_new_event", detail: { note: "a type added after this client was written" } },
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city": ' } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: "message_stop" },
];
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

// the Vercel AI SDK: streamText over @ai-sdk/anthropic, its fullStream read part by part, then its toolCalls
async function aiSdk(bodyFetch) {
  const model = createAnthropic({ apiKey: "sk-ant-test", fetch: bodyFetch })("claude-sonnet-4-5");
  const result = streamText({ model, prompt: "weather in Paris?", onError: () => {} });
  const seen = [];
  for await (const part of result.fullStream) {
    if (part.type === "error") seen.push(`error: ${String(part.error?.message ?? part.error).split("\n")[0]}`);
    if (part.type === "tool-call") seen.push(`tool-call ${part.toolName} ${JSON.stringify(part.input)}`);
    if (part.type === "finish") seen.push(`finish ${part.finishReason}`);
  }
  try {
    seen.push(`toolCalls: ${(await result.toolCalls).map((c) => c.toolName).join(",")}`);
  } catch (err) {
    seen.push(`toolCalls rejects: ${err.message}`);
  }
  return seen;
}
const parts = await aiSdk(fetch);
const first = [events[1], events[0], ...events.slice(2)]; // the same event before message_start
const firstBody = first.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const before = await aiSdk(async () => new Response(firstBody, { status: 200, headers: { "content-type": "text/event-stream" } }));

// the official SDK on the same bytes
async function official(bodyFetch) {
  const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch: bodyFetch });
  try {
    const message = await client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 100,
      messages: [{ role: "user", content: "weather in Paris?" }] }).finalMessage();
    return message.content.map((b) => `${b.type} ${b.name} ${JSON.stringify(b.input)}`).concat(`stop_reason ${message.stop_reason}`);
  } catch (err) {
    return [`error: ${err.message}`];
  }
}
const officialAfter = await official(fetch);
const officialBefore = await official(async () => new Response(firstBody, { status: 200, headers: { "content-type": "text/event-stream" } }));
console.log("ai streamText (@ai-sdk/anthropic), the event after message_start:", JSON.stringify(parts));
console.log("ai streamText (@ai-sdk/anthropic), the event before message_start:", JSON.stringify(before));
console.log("@anthropic-ai/sdk messages.stream, the event after message_start:", JSON.stringify(officialAfter));
console.log("@anthropic-ai/sdk messages.stream, the event before message_start:", JSON.stringify(officialBefore));
process.exit([...parts, ...before].some((p) => p.startsWith("error:")) ? 1 : 0);
