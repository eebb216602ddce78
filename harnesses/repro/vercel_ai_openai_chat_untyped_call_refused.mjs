// The Vercel AI SDK's OpenAI chat model refuses, as a whole, a stream=false response whose tool
// call carries no `"type": "function"` (Mistral's recorded response body: a call entry of `id`
// and `function` only, the message without `content`): `generateText` throws `APICallError`
// ("Type validation failed", expected "function" at the call's `type`), and the turn is lost.
// The same library's streaming path accepts such calls (its tool-call tracker checks `type`
// only "if present"), and the official SDK, the openai package's `chat.completions.create(...)`,
// returns the message with its call. Both read the same body through their `fetch` option.
// Run: node vercel_ai_openai_chat_untyped_call_refused.mjs (exits 1 while the response is refused).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";
import OpenAI from "openai";

const body = { id: "8a6b2c1f", object: "chat.completion", created: 1760000000, model: "mistral-small-latest",
  choices: [{ index: 0, finish_reason: "tool_calls",
    message: { role: "assistant", tool_calls: [{ id: "gSIMJiOkT", function: { name: "weather", arguments: "{\"location\": \"San Francisco\"}" } }] } }],
  usage: { prompt_tokens: 70, total_tokens: 90, completion_tokens: 20 } };
const fetch = async () => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

const tools = { weather: tool({ description: "weather", inputSchema: jsonSchema({ type: "object", additionalProperties: true }) }) };
let ours;
try {
  const result = await generateText({ model: createOpenAI({ apiKey: "sk-test", fetch }).chat("mistral-small-latest"), prompt: "weather?", tools, maxRetries: 0 });
  ours = result.toolCalls.map((c) => `${c.toolCallId} ${c.toolName} ${JSON.stringify(c.input)}`);
} catch (err) {
  ours = [`${err.name}: ${String(err.message).split("\n")[0].slice(0, 80)}`];
}
const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.chat.completions.create({ model: "mistral-small-latest", messages: [{ role: "user", content: "weather?" }] }))
  .choices[0].message.tool_calls.map((c) => `${c.id} ${c.function.name} ${c.function.arguments}`);

console.log("ai generateText (@ai-sdk/openai chat):", JSON.stringify(ours));
console.log("openai (npm) chat.completions.create:", JSON.stringify(official));
const read = ours.length === 1 && ours[0].startsWith("gSIMJiOkT weather");
console.log(`the AI SDK reads the response: ${read}`);
process.exit(read ? 0 : 1);
