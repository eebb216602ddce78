// The Vercel AI SDK's OpenAI chat model reads a tool-call fragment whose `index` is 0.5 without
// an error: the fragment, which names no call by index, id or name, is folded into the one
// call still open (provider-utils `StreamingToolCallTracker`: an unknown index with no id and no
// name continues the sole unfinished call), and that call runs with its arguments. Both
// official SDKs refuse the chunk: the openai package's `chat.completions.stream(...)` throws
// "Chat completion stream contains an invalid tool call index" (the Python SDK's chunk model
// refuses the number). Both JavaScript libraries read the same bytes through their `fetch` option.
// Run: node vercel_ai_openai_chat_fraction_index_folded.mjs (exits 1 while the fragment is folded).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1760000000, model: "gpt-4o-2024-08-06" };
const delta = (d, finish = null) => ({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
const chunks = [
  delta({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
  delta({ tool_calls: [{ index: 0.5, function: { arguments: '{"city": "Paris"}' } }] }),
  delta({}, "tool_calls"),
];
const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const tools = { get_weather: tool({ description: "weather", inputSchema: jsonSchema({ type: "object", additionalProperties: true }) }) };
const result = streamText({ model: createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o"), prompt: "weather?", tools, onError: () => {} });
const errors = [];
for await (const part of result.fullStream) if (part.type === "error") errors.push(String(part.error?.message ?? part.error));
const ours = (await result.toolCalls).map((c) => `${c.toolCallId} ${c.toolName} ${JSON.stringify(c.input)}`);

let official;
try {
  const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
  await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "weather?" }] }).finalChatCompletion();
  official = "no error";
} catch (err) {
  official = `${err.constructor.name}: ${err.message}`;
}
console.log(`ai streamText (@ai-sdk/openai chat): toolCalls ${JSON.stringify(ours)}, error parts ${JSON.stringify(errors)}`);
console.log(`openai (npm) chat.completions.stream: ${official}`);
const refused = errors.length > 0;
console.log(`the AI SDK refuses the index 0.5: ${refused}`);
process.exit(refused ? 0 : 1);
