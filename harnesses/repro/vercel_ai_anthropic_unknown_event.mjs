// The Vercel AI SDK's Anthropic provider turns one event of a type it does not list into an
// `error` part of `streamText`'s fullStream ("Type validation failed": its chunk schema is a
// closed union of event types), so every consumer of the stream and the caller's `onError`
// get an error for a turn whose events are a complete answer. Anthropic's API versioning page says it may
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

// the Vercel AI SDK: streamText over @ai-sdk/anthropic, its fullStream read part by part
const model = createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-5");
const result = streamText({ model, prompt: "weather in Paris?", onError: () => {} });
const parts = [];
for await (const part of result.fullStream) {
  if (part.type === "error") parts.push(`error: ${String(part.error?.message ?? part.error).split("\n")[0]}`);
  if (part.type === "tool-call") parts.push(`tool-call ${part.toolName} ${JSON.stringify(part.input)}`);
  if (part.type === "finish") parts.push(`finish ${part.finishReason}`);
}

// the official SDK on the same bytes
const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });
let official;
try {
  const message = await client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 100,
    messages: [{ role: "user", content: "weather in Paris?" }] }).finalMessage();
  official = message.content.map((b) => `${b.type} ${b.name} ${JSON.stringify(b.input)}`).concat(`stop_reason ${message.stop_reason}`);
} catch (err) {
  official = [`error: ${err.message}`];
}
console.log("ai streamText (@ai-sdk/anthropic) fullStream:", JSON.stringify(parts));
console.log("@anthropic-ai/sdk messages.stream:", JSON.stringify(official));
process.exit(parts.some((p) => p.startsWith("error:")) ? 1 : 0);
