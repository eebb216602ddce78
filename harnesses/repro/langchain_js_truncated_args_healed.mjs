// LangChain.js's ChatOpenAI (Chat Completions) turns arguments cut off by `max_tokens` into a
// complete, runnable call. A call whose arguments stop at `{"city": "Par` because the answer hit
// `max_tokens` (`finish_reason: "length"`; the shape of the suite's case
// openai-chat/syn-tool-call-cut-by-length): the `AIMessageChunk`s of `llm.stream(...)`, summed
// with `concat` as LangChain.js's streaming docs aggregate a stream, list
// `get_weather({city: "Par"})` among the executable `tool_calls` (langchain-core's
// `collapseToolCallChunks` closes the cut JSON with `parsePartialJson`). The official SDK's
// `chat.completions.stream(...)` keeps the raw cut text, and LangChain.js's own stream=false path
// (`llm.invoke(...)` over a body holding that message) lists the same call in
// `invalid_tool_calls`. Python LangChain does the same (langchain-ai/langchain#39275).
// Run: node langchain_js_truncated_args_healed.mjs (exits 1 while the streamed call is executable
// and invoke's is not).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const chunk = (delta, finish = null) => ({ id: "chatcmpl-mcs", object: "chat.completion.chunk", created: 0, model: "gpt-4o",
  choices: [{ index: 0, delta, finish_reason: finish }] });
const chunks = [
  chunk({ role: "assistant", content: null, tool_calls: [
    { index: 0, id: "call_mcs_cut_len", type: "function", function: { name: "get_weather", arguments: "" } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"" } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: "city" } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: "\": \"Par" } }] }),
  chunk({}, "length"),
];
const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const completion = { id: "chatcmpl-mcs", object: "chat.completion", created: 0, model: "gpt-4o",
  choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: null, tool_calls: [
    { id: "call_mcs_cut_len", type: "function", function: { name: "get_weather", arguments: "{\"city\": \"Par" } }] } }] };
const fetch = async (_url, init) => {
  const streaming = JSON.parse(init.body).stream === true;
  return new Response(streaming ? sse : JSON.stringify(completion),
    { status: 200, headers: { "content-type": streaming ? "text/event-stream" : "application/json" } });
};

const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, configuration: { fetch } });
let summed;
for await (const piece of await llm.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);
const invoked = await llm.invoke("hi");

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const stream = client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
let snapshot; // the SDK's accumulated completion after each chunk ('chunk' event)
stream.on("chunk", (_chunk, current) => { snapshot = current; });
for await (const _ of stream); // read every chunk
const official = snapshot.choices[0].message.tool_calls.map((c) => c.function.arguments);

const show = (label, value) => console.log(label.padEnd(38), JSON.stringify(value));
show("openai (npm) stream arguments (raw):", official);
show("langchain-js stream tool_calls:", summed.tool_calls.map(({ name, args, id }) => ({ name, args, id })));
show("langchain-js stream invalid_tool_calls:", summed.invalid_tool_calls.map(({ name, args }) => ({ name, args })));
show("langchain-js invoke tool_calls:", invoked.tool_calls.map(({ name, args, id }) => ({ name, args, id })));
show("langchain-js invoke invalid_tool_calls:", invoked.invalid_tool_calls.map(({ name, args }) => ({ name, args })));
const healed = summed.tool_calls.length > 0 && invoked.tool_calls.length === 0;
console.log(`streamed call executable although its arguments are cut off: ${healed}`);
process.exit(healed ? 1 : 0);
