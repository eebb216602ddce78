// LangChain.js's ChatOpenAI (Chat Completions) loses the model's refusal: the `AIMessageChunk`s
// of `llm.stream(...)`, summed with `concat` as LangChain.js's streaming docs aggregate a
// stream, carry no part of `delta.refusal`, and `llm.invoke(...)` on the same answer sent as
// one Chat Completions body keeps none of `message.refusal` either (its Responses API path
// keeps `additional_kwargs.refusal`); the caller gets an empty answer. The official SDK's
// `chat.completions.stream(...)` returns the whole refusal. The stream below is gpt-4o's
// recorded refusal (openai/openai-python's test snapshots), every library reading the same
// bytes through the openai client's `fetch` option.
// Run: node langchain_js_stream_drops_refusal.mjs (exits 1 while the stream loses the refusal).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const head = { id: "chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7", object: "chat.completion.chunk", created: 1727346172,
  model: "gpt-4o-2024-08-06", system_fingerprint: "fp_5050236cbd" };
const pieces = ["I'm", " sorry", ",", " I", " can't", " assist", " with", " that", " request", "."];
const chunks = [
  { ...head, choices: [{ index: 0, delta: { role: "assistant", content: null, refusal: "" }, logprobs: null, finish_reason: null }] },
  ...pieces.map((refusal) => ({ ...head, choices: [{ index: 0, delta: { refusal }, logprobs: null, finish_reason: null }] })),
  { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }] },
];
const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const completion = { id: head.id, object: "chat.completion", created: head.created, model: head.model,
  choices: [{ index: 0, message: { role: "assistant", content: null, refusal: pieces.join("") }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 79, completion_tokens: 11, total_tokens: 90 } };
const fetch = async (_url, init) => {
  const streaming = JSON.parse(init.body).stream === true;
  return new Response(streaming ? sse : JSON.stringify(completion),
    { status: 200, headers: { "content-type": streaming ? "text/event-stream" : "application/json" } });
};

const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, configuration: { fetch } });
let summed;
for await (const chunk of await llm.stream("hi")) summed = summed === undefined ? chunk : concat(summed, chunk);
const streamed = summed?.additional_kwargs?.refusal ?? null;
const invoked = (await llm.invoke("hi")).additional_kwargs?.refusal ?? null;

const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
const official = (await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
  .finalChatCompletion()).choices[0].message.refusal;

console.log("langchain-js llm.stream() summed, additional_kwargs.refusal:", JSON.stringify(streamed));
console.log("langchain-js llm.invoke(), additional_kwargs.refusal:", JSON.stringify(invoked));
console.log("openai (npm) chat.completions.stream, message.refusal:", JSON.stringify(official));
console.log(`the stream keeps the refusal: ${streamed === official}`);
process.exit(streamed === official ? 0 : 1);
