// The Vercel AI SDK's OpenAI chat model keeps an id of its own for a tool call whose first
// fragments carry `"id": ""` and whose real id comes on a later fragment at the same index:
// the call reaches the caller (its tool-call part, `toolCalls`) under a random id made up at the
// first fragment, and the real one, `call_real_id`, is never used; the next request's tool
// result answers an id the provider never sent. Some OpenAI-compatible servers send `""` until
// the id is known. The official SDK, the openai package's `chat.completions.stream(...)`, keeps
// the real id. Both read the same bytes through their `fetch` option.
// Run: node vercel_ai_openai_chat_empty_id_first.mjs (exits 1 while the real id is lost).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1760000000, model: "gpt-4o-2024-08-06" };
const delta = (d, finish = null) => ({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
const chunks = [
  delta({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "", type: "function", function: { name: "get_weather", arguments: "" } }] }),
  delta({ tool_calls: [{ index: 0, id: "", function: { arguments: '{"city": ' } }] }),
  delta({ tool_calls: [{ index: 0, id: "call_real_id", function: { arguments: '"Madrid"}' } }] }),
  delta({}, "tool_calls"),
];
const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

const tools = { get_weather: tool({ description: "weather", inputSchema: jsonSchema({ type: "object", additionalProperties: true }) }) };
const model = createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o");
const result = streamText({ model, prompt: "weather in Madrid?", tools, onError: () => {} });
const ours = (await result.toolCalls).map((c) => `${c.toolCallId} ${c.toolName} ${JSON.stringify(c.input)}`);

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "weather in Madrid?" }] })
  .finalChatCompletion()).choices[0].message.tool_calls.map((c) => `${c.id} ${c.function.name} ${c.function.arguments}`);

console.log("ai streamText (@ai-sdk/openai chat) toolCalls:", JSON.stringify(ours));
console.log("openai (npm) chat.completions.stream:", JSON.stringify(official));
const kept = ours.length === 1 && ours[0].startsWith("call_real_id ");
console.log(`the AI SDK keeps the real id: ${kept}`);
process.exit(kept ? 0 : 1);
