// LangChain.js's ChatOpenAI (Chat Completions) runs the second of two calls sent at the same
// `index` with other arguments than the model sent when that call's arguments come in a fragment
// of their own. Compatible servers that send every call at index 0 with a new id (the shape of
// the suite's case openai-chat/syn-same-index-new-ids): `get_weather({"city": "Paris"})` then
// `get_time({"zone": "CET"})`, each call whole in one fragment (stream A). Stream B is the same
// answer with the second call cut where the wire allows it: its id and name in one fragment, its
// arguments in the next (`index` 0, no id, as continuation fragments come). The official SDK's
// `chat.completions.stream(...)` gives one message for both streams (it folds every fragment of
// one index). `llm.stream(...)` summed with `concat` reads stream A as two calls with their
// arguments (langchain-core keeps same-index chunks with different ids apart) and stream B as
// other calls: the same answer gives other runnable calls depending on where it was cut. The
// Python LangChain does the same (langchain-ai/langchain#34807).
// Run: node langchain_js_same_index_continuation.mjs (exits 1 while LangChain's calls for stream B
// differ from its calls for stream A).
// requires: @langchain/openai@1.6.0, @langchain/core@1.4.0, openai@7.59.0, node>=22
import { concat } from "@langchain/core/utils/stream";
import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";

const chunk = (delta, finish = null) => ({ id: "chatcmpl-mcs", object: "chat.completion.chunk", created: 0, model: "gpt-4o",
  choices: [{ index: 0, delta, finish_reason: finish }] });
const A = [
  chunk({ role: "assistant", content: null }),
  chunk({ tool_calls: [{ index: 0, id: "call_zoo_w", type: "function", function: { name: "get_weather", arguments: "{\"city\": \"Paris\"}" } }] }),
  chunk({ tool_calls: [{ index: 0, id: "call_zoo_t", type: "function", function: { name: "get_time", arguments: "{\"zone\": \"CET\"}" } }] }),
  chunk({}, "tool_calls"),
];
const B = [...A.slice(0, 2),
  chunk({ tool_calls: [{ index: 0, id: "call_zoo_t", type: "function", function: { name: "get_time", arguments: "" } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"zone\": \"CET\"}" } }] }),
  ...A.slice(3)];
const fetchOf = (chunks) => async () => new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n",
  { status: 200, headers: { "content-type": "text/event-stream" } });

async function langchain(chunks) {
  const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, configuration: { fetch: fetchOf(chunks) } });
  let summed;
  for await (const piece of await llm.stream("hi")) summed = summed === undefined ? piece : concat(summed, piece);
  return summed.tool_calls.map(({ name, args, id }) => ({ name, args, id }));
}

async function sdk(chunks) {
  const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0, fetch: fetchOf(chunks) });
  const stream = client.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
  let snapshot; // the SDK's accumulated completion after each chunk ('chunk' event)
  stream.on("chunk", (_chunk, current) => { snapshot = current; });
  try { for await (const _ of stream); } catch { /* the snapshot is what it read */ }
  return snapshot.choices[0].message.tool_calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments, id: c.id }));
}

const show = (label, value) => console.log(label.padEnd(28), JSON.stringify(value));
show("openai (npm), stream A:", await sdk(A));
show("openai (npm), stream B:", await sdk(B));
const gotA = await langchain(A);
const gotB = await langchain(B);
show("langchain-js, stream A:", gotA);
show("langchain-js, stream B:", gotB);
const differs = JSON.stringify(gotA) !== JSON.stringify(gotB);
console.log(`LangChain's calls depend on where the second call's fragment was cut: ${differs}`);
process.exit(differs ? 1 : 0);
