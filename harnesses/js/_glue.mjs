/**
 * What the JavaScript SDK harnesses decide themselves, per format: the choices
 * harnesses/_glue.py and the Python SDK adapters (harnesses/sdk/chat.py, responses.py,
 * anthropic_messages.py) make, written again for the bridge's plain objects. Nothing here
 * accumulates or parses a stream; that is each SDK's job. Each adapter lists the helpers it
 * uses among its glue choices.
 *
 * Shared:
 * - `lazyRoot(acc, render)`: `acc.root` is an object whose `toJSON` renders the SDK's state
 *   when the bridge writes the message (`as_dict`), so nothing is converted per chunk and COST
 *   measures the SDK (harnesses/_glue.py `lazy_root`).
 * - `parseArguments(raw)`: a call's `arguments` string read with `JSON.parse`, as the openai
 *   docs show (so NaN and Infinity, which are no JSON, make an error call; integers past 2**53
 *   are kept whole as BigInt); empty or absent is `{}`;
 *   anything that is no JSON object is `({}, reason)` (`parse_arguments`).
 * - `requireRecords(records, who)`: a list whose items are records (`{call, result,
 *   is_error}`, exactly these keys, `call` an object); else `ValueError` naming the first
 *   item that is none (`require_records`).
 * - `sameCall(a, b)`: two tool calls are equal when name, arguments, id, raw_arguments and
 *   error are (Python's `ToolCall` equality; arguments compared as written JSON).
 * - `errorText(thrown)`: an SDK's error as text, lone surrogates escaped (a lone surrogate in
 *   an error's text crashes pytest-xdist's transport: anthropic_messages.py).
 * - The glue check (harnesses/js/glue_check.mjs): `view`, `refusalName` (how a view names a
 *   refusal, as harnesses/glue_check.py does), `adapterView` (an adapter's message for a
 *   case's chunks, fed as the suite's buffer feeds them, read by its `extract` and
 *   `contentText`), `wireFinish` (choice 0's last `finish_reason` on the wire).
 *
 * OpenAI Chat (harnesses/_glue.py, chat.py):
 * - `isChatChunk` / `isChatMessage`: recognition; a chunk is `object:
 *   "chat.completion.chunk"`, or a dict whose `choices` are all deltas beside an `id`, `model`
 *   or `prompt_filter_results`; a message is an assistant message with a `tool_calls` key and
 *   none of the envelope keys of chunks and other formats.
 * - `chatIsDone`: choice 0 (no index, or one that reads as 0: `"0"`, `0.0`) carries a
 *   `finish_reason` other than `length` / `content_filter`.
 * - `choice0Deltas`: the `delta` objects of choice 0, for the display text.
 * - `raiseOnErrorChunk`: a chunk with a truthy `error` member is the provider's error:
 *   `StreamError` carrying the chunk (the SDK's `Stream` throws `APIError` for it,
 *   openai core/streaming.mjs `fromSSEResponse`).
 * - `chatCalls`: the `tool_calls` entries, arguments by `parseArguments`; no function object
 *   or no function name is a call with `error`; `tool_calls` that is no list is one call with
 *   `error`; ids kept as they are when strings (`""` too).
 * - `continuation`: the assistant turn in request shape (`role`, `content` string or parts,
 *   `refusal` string, `tool_calls`; a call without a name left out, arguments that are no
 *   string sent as `"{}"`, a call without a usable id replayed under the id `extract` gave
 *   the call at that position when it has one (a library that makes ids up, as the Vercel AI
 *   SDK does, answers under its own), else under `call_<n>` that the record of that call
 *   answers, found by equality with `extract`'s call at that position),
 *   then one `{"role": "tool", "tool_call_id", "content"}` per record; a record whose call is
 *   not in the message is refused with `ValueError`.
 * - `noteKeys` / `wireKeysOnly`: the keys the SDK's snapshot adds that were never on the wire
 *   are removed by the rule of the suite's SDK oracle: `parsed`; on each call `index` and
 *   `function.parsed_arguments`; a null-valued (or undefined) message or call key no delta of
 *   choice 0 carried, except the message keys `keep` names (the SDK's final completion sets
 *   `content` and `refusal` as a `stream=false` message has them). Values are never changed.
 * - `ChatAdapter`: name, recognition, `isDone`, `contentText` / `formingName` read from the
 *   message, `resultMessages` by `continuation`, `extract` by `chatCalls`.
 */

const bridge = process.env.MCS_BRIDGE_JS;
if (!bridge) {
  console.error("harnesses/js: MCS_BRIDGE_JS is not set; run a harness through the suite " +
    "(pytest --mcs-strategy=\"exec:node harnesses/js/openai_chat.mjs\"), or set it to the output of " +
    "`mcs-conformance bridge js`");
  process.exit(2);
}
const server = await import(bridge);
export const { BridgeError, formatLine, parseLine, serve } = server;

export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
export const typeName = (v) => (v === null ? "NoneType" : Array.isArray(v) ? "list" : typeof v === "string" ? "str"
  : typeof v === "boolean" ? "bool" : typeof v === "number" || typeof v === "bigint" ? (Number.isInteger(Number(v)) ? "int" : "float")
    : isObject(v) ? "dict" : typeof v);
export const nonEmpty = (v) => typeof v === "string" && v !== "";

/** Whether `serve` should run: the module is the process's entry point. */
export function isMain(url) {
  return process.argv[1] !== undefined && new URL(url).pathname === process.argv[1];
}

export function lazyRoot(acc, render) {
  if (acc.root === null || acc.state.lazy !== true) {
    acc.root = { toJSON: () => render() };
    acc.state.lazy = true;
  }
}

export function errorText(thrown) {
  const text = thrown instanceof Error ? `${thrown.constructor?.name || "Error"}: ${thrown.message}` : String(thrown);
  return text.replace(/[\ud800-\udfff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** JSON.parse's reviver: an integer past 2**53 as a BigInt (the bridge writes it back whole). */
const wholeIntegers = (_, v, context) =>
  (typeof v === "number" && !Number.isSafeInteger(v) && /^-?\d+$/.test(context?.source ?? "") ? BigInt(context.source) : v);

export function parseArguments(raw) {
  if (raw === null || raw === undefined || (typeof raw === "string" && raw.trim() === "")) return [{}, null];
  if (typeof raw !== "string") return [{}, `arguments are ${typeName(raw)}, not a JSON string`];
  let value;
  try {
    value = JSON.parse(raw, wholeIntegers);
  } catch (e) {
    return [{}, `arguments are not valid JSON (${e.message})`];
  }
  if (!isObject(value)) return [{}, `arguments are a JSON ${typeName(value)}, not an object`];
  return [value, null];
}

export function requireRecords(records, who) {
  if (!Array.isArray(records)) throw new BridgeError("ValueError", `${who}: records must be a sequence of ToolCallRecord, got ${typeName(records)}`);
  records.forEach((record, i) => {
    const keys = isObject(record) ? Object.keys(record).sort().join(",") : "";
    if (keys !== "call,is_error,result" || !isObject(record.call)) {
      throw new BridgeError("ValueError", `${who}: records[${i}] is ${typeName(record)}, not a ToolCallRecord`);
    }
  });
  return records;
}

const callKey = (c) => formatLine([c?.name ?? "", c?.arguments ?? {}, c?.id ?? null, c?.raw_arguments ?? null, c?.error ?? null]);
export const sameCall = (a, b) => callKey(a) === callKey(b);

/** A tool call as the bridge carries it. */
export const toolCall = (name, args, id = null, raw = null, error = null) =>
  ({ name, arguments: args, id, raw_arguments: raw, error });

// -- OpenAI Chat ------------------------------------------------------------------------------
const ENVELOPE = ["choices", "object", "type", "delta", "output", "content_block", "message"];

export function isChatChunk(shape) {
  if (!isObject(shape)) return false;
  if (shape.object === "chat.completion.chunk") return true;
  const choices = shape.choices;
  return Array.isArray(choices) && choices.every((c) => isObject(c) && "delta" in c)
    && ["id", "model", "prompt_filter_results"].some((k) => k in shape);
}

export function isChatMessage(shape) {
  return isObject(shape) && "tool_calls" in shape && (shape.role === undefined || shape.role === null || shape.role === "assistant")
    && !ENVELOPE.some((k) => k in shape);
}

function isChoice0(index) {
  if (index === undefined || index === null) return true;
  if (typeof index === "boolean") return false;
  if (typeof index === "bigint") return index === 0n;
  if (typeof index === "number") return index === 0;
  if (typeof index === "string") {
    const t = index.trim();
    return t !== "" && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) && Number(t) === 0;
  }
  return false;
}

function choice0(chunk) {
  const choices = isObject(chunk) ? chunk.choices : undefined;
  return Array.isArray(choices) ? choices.filter((c) => isObject(c) && isChoice0(c.index)) : [];
}

const CUT = new Set(["length", "content_filter"]);

export function chatIsDone(chunk) {
  try {
    return choice0(chunk).some((c) => c.finish_reason !== undefined && c.finish_reason !== null
      && !(typeof c.finish_reason === "string" && CUT.has(c.finish_reason)));
  } catch {
    return false;
  }
}

export const choice0Deltas = (chunk) => choice0(chunk).map((c) => c.delta).filter(isObject);

export function raiseOnErrorChunk(chunk, who) {
  if (isObject(chunk) && chunk.error) {
    const error = chunk.error;
    const text = isObject(error) ? error.message : undefined;
    throw new BridgeError("StreamError", `${who}: the provider reported an error in the stream: ${text || formatLine(error)}`, chunk);
  }
}

export function chatCalls(message, who) {
  if (!isObject(message)) throw new BridgeError("ValueError", `${who}.extract: expects an assistant message dict, got ${typeName(message)}`);
  const entries = message.tool_calls;
  if (entries !== undefined && entries !== null && !Array.isArray(entries)) {
    return [toolCall("", {}, null, null, `tool_calls is ${typeName(entries)}, not a list`)];
  }
  return (entries ?? []).map((entry, n) => {
    const fn = isObject(entry) ? entry.function : undefined;
    if (!isObject(fn)) {
      const id = isObject(entry) ? entry.id : undefined;
      return toolCall("", {}, nonEmpty(id) ? id : null, null, `tool_calls[${n}] has no function object`);
    }
    const { name, arguments: raw } = fn;
    let [args, error] = parseArguments(raw);
    if (error === null && !nonEmpty(name)) error = "the tool call has no function name";
    return toolCall(typeof name === "string" ? name : "", args, typeof entry.id === "string" ? entry.id : null,
      typeof raw === "string" ? raw : null, error);
  });
}

export function continuation(who, assistant, records, calls) {
  records = requireRecords(records, who);
  const turn = { role: "assistant" };
  if (typeof assistant.content === "string" || Array.isArray(assistant.content)) turn.content = assistant.content;
  if (typeof assistant.refusal === "string") turn.refusal = assistant.refusal;
  const entries = Array.isArray(assistant.tool_calls) ? assistant.tool_calls : [];
  const taken = new Set(entries.filter(isObject).map((e) => e.id));
  const replayed = [];
  const made = new Map();
  entries.forEach((entry, n) => {
    const fn = isObject(entry) ? entry.function : undefined;
    const name = isObject(fn) ? fn.name : undefined;
    if (!nonEmpty(name)) return; // the API refuses a call without a name; it was never executable
    let id = entry.id;
    if (!nonEmpty(id)) { // the id extract gave the call (one the library made up), else one of ours
      const given = n < calls.length ? calls[n].id : null;
      if (nonEmpty(given) && !taken.has(given)) {
        id = given;
      } else {
        id = `call_${n}`;
        while (taken.has(id)) id += "_";
      }
      taken.add(id);
      made.set(n, id);
    }
    replayed.push({ id, type: "function", function: { name, arguments: typeof fn.arguments === "string" ? fn.arguments : "{}" } });
  });
  if (replayed.length) turn.tool_calls = replayed;
  const ids = replayed.map((c) => c.id);
  const out = [turn];
  records.forEach((record, k) => {
    let id = nonEmpty(record.call.id) ? record.call.id : null;
    if (id === null) { // a call that came without a usable id: the one extract returned
      const n = [...made.keys()].find((i) => i < calls.length && sameCall(calls[i], record.call));
      if (n !== undefined) { id = made.get(n); made.delete(n); }
    }
    if (id === null || !ids.includes(id)) {
      throw new BridgeError("ValueError", `${who}: record ${k} answers call id ${formatLine(record.call.id ?? null)}, which is not a call `
        + `of the assistant message (its call ids: ${formatLine(ids)})`);
    }
    out.push({ role: "tool", tool_call_id: id, content: record.result });
  });
  return out;
}

export function noteKeys(deltas, keys, callKeys) {
  for (const delta of deltas) {
    for (const k of Object.keys(delta)) keys.add(k);
    for (const fragment of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (isObject(fragment)) for (const k of Object.keys(fragment)) callKeys.add(k);
    }
  }
}

export function wireKeysOnly(message, keys, callKeys, keep = new Set()) {
  const out = {};
  for (const [k, v] of Object.entries(message)) {
    if (k === "parsed") continue;
    if ((v === null || v === undefined) && !keys.has(k) && !keep.has(k)) continue;
    out[k] = v === undefined ? null : v;
  }
  if (Array.isArray(out.tool_calls)) {
    out.tool_calls = out.tool_calls.map((call) => {
      if (!isObject(call)) return call ?? null; // a hole the SDK left in its array is written as null
      const c = {};
      for (const [k, v] of Object.entries(call)) {
        if (k === "index") continue;
        if ((v === null || v === undefined) && !callKeys.has(k)) continue;
        c[k] = v === undefined ? null : v;
      }
      if (isObject(c.function)) {
        const { parsed_arguments: _drop, ...fn } = c.function;
        c.function = fn;
      }
      return c;
    });
  }
  return out;
}

export class ChatAdapter {
  name = "openai-chat";
  leaksIntoText = false;
  who = "an OpenAI Chat adapter";

  recognizes(shape) {
    try {
      return isChatChunk(shape) || isChatMessage(shape);
    } catch {
      return false;
    }
  }

  isDone(chunk) {
    return chatIsDone(chunk);
  }

  extract(message) {
    return chatCalls(message, this.who);
  }

  contentText(message) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${this.who}.content_text: expects an assistant message dict, got ${typeName(message)}`);
    return typeof message.content === "string" ? message.content : "";
  }

  formingName(message) {
    const entries = isObject(message) ? message.tool_calls : undefined;
    if (!Array.isArray(entries) || !entries.length || !isObject(entries[0])) return null;
    const fn = entries[0].function;
    const name = isObject(fn) ? fn.name : undefined;
    return nonEmpty(name) ? name : null;
  }

  resultMessages(message, records) {
    if (!isObject(message)) throw new BridgeError("ValueError", `${this.who}: the message is a dict, got ${typeName(message)}`);
    return continuation(this.who, message, records, this.extract(message));
  }
}

// -- The glue check (harnesses/js/glue_check.mjs, harnesses/glue_check.py) ------------------
// An adapter's `glueView(case)` answers `{library, adapter}`, two views of one case: what the
// library's own output object holds, and what the adapter's message gives through its own
// `extract` / `contentText`. A view is `{text, calls: [{id, name, arguments}], stop, refused}`.

/** One view (V). */
export const view = ({ text = null, calls = [], stop = null, refused = null } = {}) => ({ text, calls, stop, refused });

/** How a view names a refusal, as harnesses/glue_check.py `refusal` does: `"provider error"`
 * when the chain of causes holds the protocol's `StreamError` or an SDK's `APIError` /
 * `APIStatusError` (the error the SDK throws for an error event), else the type name of the
 * first cause that is no `BridgeError` (the library's own error an adapter's refusal carries
 * as its `cause`), else the `BridgeError`'s protocol type (a refusal of the adapter's own). */
export function refusalName(error) {
  if (error === null || error === undefined) return null;
  const chain = [];
  for (let e = error; e !== null && e !== undefined && !chain.includes(e); e = e.cause) chain.push(e);
  const own = (e) => e instanceof BridgeError;
  if (chain.some((e) => (own(e) && e.type === "StreamError") || (!own(e) && ["APIError", "APIStatusError"].includes(e?.constructor?.name)))) {
    return "provider error";
  }
  const library = chain.find((e) => !own(e));
  if (library !== undefined) return library?.constructor?.name || typeof library;
  return chain[chain.length - 1].type;
}

/** The adapter's view of `chunks`: each fed to `strategy.accumulate` on a fresh accumulator, as
 * the suite's buffer feeds them (stopping at the first refusal), the message written as the
 * bridge writes `as_dict`, read by the adapter's `extract` and `contentText`; a call's
 * `arguments` are its raw text where the adapter kept one, else its object (as
 * harnesses/glue_check.py `adapter_view`). `stop(message, fed)`: the view's stop, from the
 * message and the chunks accepted. */
export async function adapterView(strategy, chunks, stop) {
  const acc = { root: null, state: {} };
  const fed = [];
  for (const chunk of structuredClone(chunks)) {
    try {
      await strategy.accumulate(acc, chunk);
    } catch (error) {
      return view({ refused: refusalName(error) });
    }
    fed.push(chunk);
  }
  const message = acc.root === null ? null : parseLine(formatLine(acc.root));
  if (message === null) return view({ stop: stop(null, fed) });
  const calls = (await strategy.extract(message)).map((c) => ({ id: c.id ?? null, name: c.name,
    arguments: c.raw_arguments ?? c.arguments ?? {} }));
  return view({ text: await strategy.contentText(message), calls, stop: stop(message, fed) });
}

/** The last `finish_reason` choice 0 carried in `chunks` (null when none did): what
 * `chatIsDone` reads, and an OpenAI Chat adapter's stop in the glue check (its message holds
 * none; harnesses/_glue.py `wire_finish`). */
export function wireFinish(chunks) {
  let found = null;
  for (const chunk of chunks) {
    for (const c of choice0(chunk)) if (c.finish_reason !== null && c.finish_reason !== undefined) found = c.finish_reason;
  }
  return found;
}
