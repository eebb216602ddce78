// The Vercel AI SDK's OpenAI chat model reads a chunk that carries an `error` member as an
// ordinary chunk when the chunk also has `choices` (OpenRouter's mid-stream error shape: the
// error beside a choice with `finish_reason: "error"`) or when its `error` is a string (a
// proxy's or gateway's text): no `error` part reaches the caller, and the turn ends (finish
// reason `other`, or `interrupted`) with its partial text as the answer. The official SDK, the openai package,
// throws `APIError` at any chunk with an `error` member (core/streaming `Stream`). Both read the
// same bytes through their `fetch` option.
// Run: node vercel_ai_openai_chat_error_chunk_ignored.mjs (exits 1 while the error is not reported).
// requires: ai@7.0.173, @ai-sdk/openai@4.0.118, openai@7.59.0, node>=22
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import OpenAI from "openai";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1760000000, model: "gpt-4o-2024-08-06" };
const delta = (d, finish = null) => ({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
const streams = {
  "error beside choices": [delta({ role: "assistant", content: "Here is" }), delta({ content: " the forecast" }),
    { ...delta({ content: "" }, "error"), error: { message: "Upstream provider returned 502", code: 502 } }],
  "error as text": [delta({ role: "assistant", content: "Let me" }),
    { ...head, error: "upstream connect error or disconnect/reset before headers", choices: [] }],
};

let reported = 0;
for (const [name, chunks] of Object.entries(streams)) {
  const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
  const fetch = async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  const result = streamText({ model: createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o"), prompt: "weather?", onError: () => {} });
  const parts = [];
  for await (const part of result.fullStream) {
    if (part.type === "error") parts.push(`error: ${String(part.error?.message ?? part.error).split("\n")[0]}`);
    if (part.type === "finish") parts.push(`finish ${part.finishReason}`);
  }
  const text = await result.text;
  let official;
  try {
    const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
    await client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "weather?" }] }).finalChatCompletion();
    official = "no error";
  } catch (err) {
    official = `${err.constructor.name}: ${err.message}`;
  }
  console.log(`${name}: ai streamText (@ai-sdk/openai chat) text ${JSON.stringify(text)}, parts ${JSON.stringify(parts)}`);
  console.log(`${name}: openai (npm) chat.completions.stream: ${official}`);
  if (parts.some((p) => p.startsWith("error:"))) reported += 1;
}
console.log(`the AI SDK reports the error chunks: ${reported === Object.keys(streams).length}`);
process.exit(reported === Object.keys(streams).length ? 0 : 1);
