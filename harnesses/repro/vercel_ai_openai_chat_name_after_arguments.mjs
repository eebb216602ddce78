// The Vercel AI SDK's OpenAI chat model refuses a tool call whose first fragment carries only
// arguments, with its id and name in the next fragment at the same index: reading
// `streamText`'s fullStream throws `InvalidResponseDataError` ("Expected 'function.name' to be
// a string.") at that fragment and gives no tool-call part, so the turn is lost. Some OpenAI-compatible servers stream a call so, and the
// same library's `@ai-sdk/openai-compatible` provider buffers such fragments until the name
// arrives (vercel/ai PR #14760); the official SDK, the openai package's
// `chat.completions.stream(...)`, folds the fragments by index into one call. Both read the
// same bytes through their `fetch` option; the fragments are the only difference from a
// call OpenAI streams.
// Run: node vercel_ai_openai_chat_name_after_arguments.mjs (exits 1 while the call is lost).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import OpenAI from "openai";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1732900000, model: "gpt-4o-2024-08-06" };
const delta = (d, finish = null) => ({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
const chunks = [
  delta({ role: "assistant", content: null }),
  delta({ tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }),
  delta({ tool_calls: [{ index: 0, id: "call_late", type: "function", function: { name: "get_weather", arguments: '"Kyiv"}' } }] }),
  delta({}, "tool_calls"),
];
const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const model = createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o");
const result = streamText({ model, prompt: "weather in Kyiv?", onError: () => {} });
const parts = [];
try {
  for await (const part of result.fullStream) {
    if (part.type === "error") parts.push(`error: ${String(part.error?.message ?? part.error).split("\n")[0]}`);
    if (part.type === "tool-call") parts.push(`tool-call ${part.toolCallId} ${part.toolName} ${JSON.stringify(part.input)}`);
  }
} catch (err) {
  parts.push(`the stream threw ${err.name}: ${err.message}`);
}

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "weather in Kyiv?" }] })
  .finalChatCompletion()).choices[0].message.tool_calls.map((c) => `tool-call ${c.id} ${c.function.name} ${c.function.arguments}`);

console.log("ai streamText (@ai-sdk/openai chat) fullStream:", JSON.stringify(parts));
console.log("openai (npm) chat.completions.stream:", JSON.stringify(official));
const kept = parts.some((p) => p.startsWith("tool-call call_late get_weather"));
console.log(`the AI SDK keeps the call: ${kept}`);
process.exit(kept ? 0 : 1);
