// LangChain.js's ChatOpenAI reads a call whose `arguments` are the empty string (a tool without
// parameters, as OpenAI-compatible servers send it) as an invalid call on its stream=false path:
// `llm.invoke(...)` over a Chat Completions body holding `get_time` with `arguments: ""` lists it
// in `invalid_tool_calls` (`parseToolCall`: `JSON.parse("")` throws), and so does the Responses
// API path (`useResponsesApi: true`) over a response whose `function_call` item has
// `arguments: ""`; LangChain.js's own stream path, on the same call streamed, returns it
// executable with `{}` (`collapseToolCallChunks` reads empty arguments as `"{}"`). The same
// answer read two ways gives a runnable call once and none the other time.
// Run: node langchain_js_invoke_empty_arguments_invalid.mjs (exits 1 while invoke's call is invalid
// and the stream's is executable).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";

const call = { id: "call_mcs_empty", type: "function", function: { name: "get_time", arguments: "" } };
const completion = { id: "chatcmpl-mcs", object: "chat.completion", created: 0, model: "gpt-4o",
  choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [call] } }] };
const chunk = (delta, finish = null) => ({ id: "chatcmpl-mcs", object: "chat.completion.chunk", created: 0, model: "gpt-4o",
  choices: [{ index: 0, delta, finish_reason: finish }] });
const sse = [chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] }), chunk({}, "tool_calls")]
  .map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const response = { id: "resp_mcs", object: "response", created_at: 0, status: "completed", model: "gpt-4o",
  output: [{ id: "fc_mcs", type: "function_call", status: "completed", call_id: "call_mcs_empty", name: "get_time", arguments: "" }] };
const fetch = async (url, init) => {
  const body = JSON.parse(init.body);
  if (String(url).endsWith("/responses")) return new Response(JSON.stringify(response), { status: 200, headers: { "content-type": "application/json" } });
  return body.stream === true
    ? new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } })
    : new Response(JSON.stringify(completion), { status: 200, headers: { "content-type": "application/json" } });
};

const chat = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, configuration: { fetch } });
const responses = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, useResponsesApi: true, configuration: { fetch } });
let summed;
for await (const piece of await chat.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);
const invoked = await chat.invoke("hi");
const invokedResponses = await responses.invoke("hi");

const show = (label, message) => console.log(label.padEnd(44), JSON.stringify({
  tool_calls: message.tool_calls.map(({ name, args }) => ({ name, args })),
  invalid_tool_calls: message.invalid_tool_calls.map(({ name, args }) => ({ name, args })) }));
show("langchain-js stream (Chat Completions):", summed);
show("langchain-js invoke (Chat Completions):", invoked);
show("langchain-js invoke (Responses API):", invokedResponses);
const differs = summed.tool_calls.length === 1 && invoked.tool_calls.length === 0;
console.log(`invoke reads empty arguments as an invalid call: ${differs}`);
process.exit(differs ? 1 : 0);
