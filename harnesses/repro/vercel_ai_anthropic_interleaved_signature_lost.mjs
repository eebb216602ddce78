// The Vercel AI SDK's Anthropic provider drops a thinking block's `signature_delta` when another
// block started after the thinking block and before the signature came (blocks interleaved, as
// gateways that translate other wires send them): the provider checks the delta against the
// type of the block started last (one `blockType` for the whole stream), not the block its
// `index` names, so the reasoning part carries no signature and the thinking block cannot be
// sent back to the API, which requires it. The official SDK, @anthropic-ai/sdk's
// `messages.stream(...)`, files every delta by its index and keeps the signature. Both read the
// same bytes through their `fetch` option.
// Run: node vercel_ai_anthropic_interleaved_signature_lost.mjs (exits 1 while the signature is lost).
// requires: ai@7.0.173, @ai-sdk/anthropic@4.0.105, @anthropic-ai/sdk@1.16.0, node>=22
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { streamText } from "ai";

const events = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
    content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "A short answer." } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hi" } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2lnbmF0dXJl" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: "message_stop" },
];
const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const result = streamText({ model: createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-5"), prompt: "hi", onError: () => {} });
let ours = null;
for await (const part of result.fullStream) {
  const signature = part.providerMetadata?.anthropic?.signature;
  if (part.type.startsWith("reasoning") && typeof signature === "string" && signature !== "") ours = signature;
}

const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });
const message = await client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
const official = message.content.find((b) => b.type === "thinking")?.signature ?? null;

console.log(`ai streamText (@ai-sdk/anthropic) reasoning signature: ${JSON.stringify(ours)}`);
console.log(`@anthropic-ai/sdk messages.stream thinking signature: ${JSON.stringify(official)}`);
console.log(`the AI SDK keeps the signature: ${ours === official}`);
process.exit(ours === official ? 0 : 1);
