// The Vercel AI SDK's Anthropic provider reports a turn's tool calls in the order their blocks
// stop, not in the order of the message's content: two `tool_use` blocks open at the same time
// (interleaved, as gateways that translate other wires' parallel calls send them), the second
// stopped first, reach the caller (`toolCalls`, the tool-call parts, the next request's
// assistant message) second-first. The official SDK, @anthropic-ai/sdk's `messages.stream(...)`,
// files each block by its index and returns them in content order. Both read the same bytes
// through their `fetch` option.
// Run: node vercel_ai_anthropic_calls_in_completion_order.mjs (exits 1 while the order differs).
// requires: ai@7.0.173, @ai-sdk/anthropic@4.0.105, @anthropic-ai/sdk@1.16.0, node>=22
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchema, streamText, tool } from "ai";

const start = (index, id, city) => [
  { type: "content_block_start", index, content_block: { type: "tool_use", id, name: "get_weather", input: {} } },
  { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify({ city }) } },
];
const events = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
    content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  ...start(0, "toolu_paris", "Paris"), ...start(1, "toolu_tokyo", "Tokyo"),
  { type: "content_block_stop", index: 1 },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } },
  { type: "message_stop" },
];
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const tools = { get_weather: tool({ description: "weather", inputSchema: jsonSchema({ type: "object", additionalProperties: true }) }) };
const result = streamText({ model: createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-5"), prompt: "weather?", tools, onError: () => {} });
const ours = (await result.toolCalls).map((c) => c.toolCallId);

const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });
const message = await client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "weather?" }] }).finalMessage();
const official = message.content.filter((b) => b.type === "tool_use").map((b) => b.id);

console.log(`ai streamText (@ai-sdk/anthropic) toolCalls: ${JSON.stringify(ours)}`);
console.log(`@anthropic-ai/sdk messages.stream content: ${JSON.stringify(official)}`);
const same = JSON.stringify(ours) === JSON.stringify(official);
console.log(`the AI SDK keeps the content order: ${same}`);
process.exit(same ? 0 : 1);
