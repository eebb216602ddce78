// The Vercel AI SDK's OpenAI chat model reads a function name sent in two fragments of one
// call (`get_`, then `weather`, at the same index, before the arguments) as two calls, and
// the arguments that follow reach neither: `streamText`'s fullStream gives no tool call with
// `{"city": "Berlin"}`. Some servers stream a name in pieces (continuedev/continue PR #5849
// reports Gemini's "edit_ex" + "isting_file"). The official SDKs give one call with the
// arguments: the openai package's `chat.completions.stream(...)` keeps the last piece of the
// name (`weather`), the Python SDK joins them (`get_weather`). Both read the same bytes
// through their `fetch` option; the split name is the only difference from a call OpenAI
// streams.
// Run: node vercel_ai_openai_chat_name_in_pieces.mjs (exits 1 while the arguments are lost).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import OpenAI from "openai";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1760000000, model: "gpt-4o-2024-08-06" };
const delta = (d, finish = null) => ({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
const chunks = [
  delta({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_split_name", type: "function", function: { name: "get_", arguments: "" } }] }),
  delta({ tool_calls: [{ index: 0, function: { name: "weather" } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Be' } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: 'rlin"}' } }] }),
  delta({}, "tool_calls"),
];
const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const model = createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o");
const result = streamText({ model, prompt: "weather in Berlin?", onError: () => {} });
const parts = [];
try {
  for await (const part of result.fullStream) {
    if (part.type === "error") parts.push(`error: ${String(part.error?.message ?? part.error).split("\n")[0]}`);
    if (part.type === "tool-call") parts.push(`tool-call ${part.toolName} ${JSON.stringify(part.input)}`);
  }
} catch (err) {
  parts.push(`the stream threw ${err.name}: ${err.message}`);
}

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "weather in Berlin?" }] })
  .finalChatCompletion()).choices[0].message.tool_calls.map((c) => `tool-call ${c.function.name} ${c.function.arguments}`);

console.log("ai streamText (@ai-sdk/openai chat) fullStream:", JSON.stringify(parts));
console.log("openai (npm) chat.completions.stream:", JSON.stringify(official));
const kept = parts.some((p) => p.startsWith("tool-call ") && p.includes('"city":"Berlin"'));
console.log(`the AI SDK keeps the arguments: ${kept}`);
process.exit(kept ? 0 : 1);
