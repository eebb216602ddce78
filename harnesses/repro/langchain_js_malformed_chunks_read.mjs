// LangChain.js's ChatOpenAI reads, without an error, chunks that the official SDK's stream helpers
// refuse: it converts each chunk on its own (`choices[0].delta` of a Chat Completions chunk, one
// Responses event at a time) and checks neither their types nor their order. Two streams: a Chat
// Completions stream whose second chunk has `choices` as an object (no list), and a Responses
// stream whose `response.output_text.delta` names an output item no event added. LangChain.js
// (`llm.stream(...)`, summed with `concat`) returns an answer for both; the openai SDK's
// `chat.completions.stream(...)` and `responses.stream(...)` throw on the same bytes.
// Run: node langchain_js_malformed_chunks_read.mjs (exits 1 while LangChain reads both streams the SDK refuses).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const head = { id: "chatcmpl-mcs", object: "chat.completion.chunk", created: 0, model: "gpt-4o" };
const chatChunks = [
  { ...head, choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }] },
  { ...head, choices: { index: 0, delta: { content: "lo" }, finish_reason: null } }, // `choices` is no list
  { ...head, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
];
const created = { id: "resp_mcs", object: "response", created_at: 0, status: "in_progress", model: "gpt-4o", output: [] };
const responseEvents = [
  { type: "response.created", response: created, sequence_number: 0 },
  { type: "response.output_text.delta", item_id: "msg_never_added", output_index: 0, content_index: 0, delta: "Hello", sequence_number: 1 },
  { type: "response.completed", response: { ...created, status: "completed" }, sequence_number: 2 },
];
const chatSse = chatChunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const responsesSse = responseEvents.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fetch = async (url) => new Response(String(url).endsWith("/responses") ? responsesSse : chatSse,
  { status: 200, headers: { "content-type": "text/event-stream" } });

async function langchain(useResponsesApi) {
  const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, useResponsesApi, configuration: { fetch } });
  try {
    let summed;
    for await (const piece of await llm.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);
    return { answer: summed.text };
  } catch (error) {
    return { thrown: `${error.constructor.name}: ${error.message}` };
  }
}

async function sdk(kind) {
  const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch });
  try {
    if (kind === "chat") {
      const stream = client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
      return { answer: (await stream.finalChatCompletion()).choices[0].message.content };
    }
    const stream = client.responses.stream({ model: "gpt-4o", input: "hi" });
    return { answer: (await stream.finalResponse()).output_text };
  } catch (error) {
    return { thrown: `${error.constructor.name}: ${error.message}` };
  }
}

const rows = [
  ["Chat Completions, `choices` an object", await langchain(false), await sdk("chat")],
  ["Responses, a delta for no item", await langchain(true), await sdk("responses")],
];
let read = 0;
for (const [label, lc, official] of rows) {
  console.log(`${label}: langchain-js ${JSON.stringify(lc)}; openai (npm) ${JSON.stringify(official)}`);
  if (lc.thrown === undefined && official.thrown !== undefined) read += 1;
}
console.log(`streams LangChain reads that the SDK refuses: ${read} of ${rows.length}`);
process.exit(read > 0 ? 1 : 0);
