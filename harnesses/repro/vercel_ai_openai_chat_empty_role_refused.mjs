// The Vercel AI SDK's OpenAI chat model refuses every chunk whose delta carries `"role": ""`
// (its chunk schema allows `role` to be "assistant" or absent): each such chunk becomes an
// `error` part of `streamText`'s fullStream ("Type validation failed") and its content is
// dropped, so the caller gets "Hi" of "Hi there" and a finish reason `error`. Some
// OpenAI-compatible servers (MiniMax, GLM) send `""` on continuation deltas; the same library's
// `@ai-sdk/openai-compatible` provider accepts it since vercel/ai PR #15464. The official SDK, the
// openai package's `chat.completions.stream(...)`, reads the chunks and returns "Hi there".
// Run: node vercel_ai_openai_chat_empty_role_refused.mjs (exits 1 while the chunks are refused).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import OpenAI from "openai";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1760000000, model: "gpt-4o-2024-08-06" };
const delta = (d, finish = null) => ({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
const chunks = [delta({ role: "assistant", content: "Hi" }), delta({ role: "", content: " there" }), delta({ role: "" }, "stop")];
const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const result = streamText({ model: createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o"), prompt: "hello", onError: () => {} });
const errors = [];
for await (const part of result.fullStream) {
  if (part.type === "error") errors.push(String(part.error?.message ?? part.error).split("\n")[0].slice(0, 60));
}
const text = await result.text;
const finish = await result.finishReason;

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] })
  .finalChatCompletion()).choices[0].message.content;

console.log(`ai streamText (@ai-sdk/openai chat): text ${JSON.stringify(text)}, finish ${finish}, error parts ${JSON.stringify(errors)}`);
console.log(`openai (npm) chat.completions.stream: ${JSON.stringify(official)}`);
console.log(`the AI SDK reads the chunks: ${text === official && errors.length === 0}`);
process.exit(text === official && errors.length === 0 ? 0 : 1);
