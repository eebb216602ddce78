// The Vercel AI SDK's Anthropic provider drops the text a text block's `content_block_start`
// carries (the API reference's `content_block_start.content_block` is a whole block, its `text`
// included; some servers put the first text there): the block's text is only its `text_delta`
// pieces, so the turn's text loses its start ("'ll check" for "I'll check"). The official SDK,
// @anthropic-ai/sdk's `messages.stream(...)`, starts the block with that text. Both read the same
// bytes through their `fetch` option.
// Run: node vercel_ai_anthropic_start_text_dropped.mjs (exits 1 while the text is dropped).
// requires: ai@7.0.173, @ai-sdk/anthropic@4.0.105, @anthropic-ai/sdk@1.16.0, node>=22
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { streamText } from "ai";

const events = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
    content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "I" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "'ll check the weather." } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 8 } },
  { type: "message_stop" },
];
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const result = streamText({ model: createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-5"), prompt: "hi", onError: () => {} });
for await (const part of result.fullStream) void part;
const ours = await result.text;

const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });
const message = await client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
const official = message.content.filter((b) => b.type === "text").map((b) => b.text).join("");

console.log(`ai streamText (@ai-sdk/anthropic) text: ${JSON.stringify(ours)}`);
console.log(`@anthropic-ai/sdk messages.stream text: ${JSON.stringify(official)}`);
console.log(`the AI SDK keeps the start text: ${ours === official}`);
process.exit(ours === official ? 0 : 1);
