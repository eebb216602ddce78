// LangChain.js's ChatOpenAI (Chat Completions) loses every tool call of a stream whose deltas
// carry no `role`: the delta is converted by its role (`delta.role ?? defaultRole`), and with none
// it becomes a generic `ChatMessageChunk`, which keeps no `tool_call_chunks`. The stream below is
// Mistral's API serving zai-glm-5-2 (recorded in vercel/ai@ed857f50,
// packages/mistral/src/__fixtures__/mistral-incremental-tool-call.chunks.txt, Apache-2.0): one
// `webSearchTool` call, no `role` in any delta. `llm.stream(...)` summed with `concat`, as
// LangChain.js's streaming docs aggregate a stream, holds no call and raises nothing; the
// official SDK's `chat.completions.stream(...)` holds the call in its snapshot and refuses the
// stream when it ends (`finalChatCompletion()`: "missing role for choice 0"), so its caller
// either has the call or an error.
// Run: node langchain_js_roleless_stream_drops_calls.mjs (exits 1 while the summed stream holds no call).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const head = { id: "735e434874a24f68a2390b3cab149242", object: "chat.completion.chunk", created: 1787234678, model: "zai-glm-5-2" };
const chunks = [
  { ...head, choices: [{ index: 0, delta: { tool_calls: [{ id: "chatcmpl-tool-9f149c74c42f265b", type: "function",
    function: { name: "webSearchTool", arguments: "" }, index: 0 }], index: 0, content: "" }, finish_reason: null, logprobs: null }] },
  { ...head, choices: [{ index: 0, delta: { tool_calls: [{ type: "function",
    function: { name: "", arguments: "{\"query\": \"current Berlin weather\"}" }, index: 0 }], index: 0, content: "" }, finish_reason: null, logprobs: null }] },
  { ...head, choices: [{ index: 0, delta: { index: 0, content: "" }, finish_reason: "tool_calls", logprobs: null }],
    usage: { prompt_tokens: 171, total_tokens: 185, completion_tokens: 14, prompt_tokens_details: { cached_tokens: 128 } } },
];
const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const fetch = async () => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });

const llm = new ChatOpenAI({ model: "zai-glm-5-2", apiKey: "sk-test", maxRetries: 0, configuration: { fetch } });
let summed;
for await (const piece of await llm.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const stream = client.chat.completions.stream({ model: "zai-glm-5-2", messages: [{ role: "user", content: "hi" }] });
let snapshot; // the SDK's accumulated completion after each chunk ('chunk' event)
stream.on("chunk", (_chunk, current) => { snapshot = current; });
let ending = "none";
try {
  for await (const _ of stream); // read every chunk
  await stream.finalChatCompletion();
} catch (error) {
  ending = `${error.constructor.name}: ${error.message}`; // the SDK refuses the role-less stream when it ends
}
const official = snapshot.choices[0].message.tool_calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments }));

const calls = summed.tool_calls ?? [];
console.log("langchain-js llm.stream() summed, type:", summed.constructor.name);
console.log("langchain-js llm.stream() summed, tool_calls:", JSON.stringify(calls), "(no error)");
console.log("openai (npm) chat.completions.stream snapshot, tool_calls:", JSON.stringify(official));
console.log("openai (npm) finalChatCompletion():", ending);
console.log(`the summed stream keeps the call: ${calls.length === official.length}`);
process.exit(calls.length === official.length ? 0 : 1);
