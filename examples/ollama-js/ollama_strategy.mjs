/**
 * An Ollama `/api/chat` strategy in JavaScript, served to the conformance suite through the
 * bridge (docs/bridge.md): the same behaviour as examples/ollama/ollama_strategy.py, run on
 * the same corpus, to show that a strategy in another language passes the suite.
 *
 * The wire is NDJSON: one object per line, `{"model", "created_at", "message": {...},
 * "done": false}`, and a last one with `"done": true`, `done_reason` and timings. An error
 * during the stream arrives as a line `{"error": "..."}`.
 *
 * The native message is the `message` object of the `stream=false` response: `content` and
 * `thinking` are the concatenation of the chunks' pieces, and `tool_calls` is EXTENDED with
 * each chunk's list (Ollama sends every call whole, with its arguments as a JSON object, no
 * index to merge on and no id). Other message keys are kept as first sent.
 *
 * Claimed shapes: Ollama chunks, and assistant messages with a non-empty `tool_calls` list
 * whose arguments are all JSON objects (OpenAI Chat sends strings there). A message without
 * calls is left to the reference text strategy, which claims every object with string
 * content and no envelope key: two strategies claiming one shape would make the chain's
 * answer depend on its order.
 *
 * Run: pytest --mcs-strategy="exec:node ollama_strategy.mjs" (README.md).
 */

const bridge = process.env.MCS_BRIDGE_JS;
if (!bridge) {
  console.error("ollama_strategy.mjs: MCS_BRIDGE_JS is not set; run it through the suite " +
    "(pytest --mcs-strategy=\"exec:node ollama_strategy.mjs\"), or set it to the output of `mcs-conformance bridge js`");
  process.exit(2);
}
const { BridgeError } = await import(bridge);

const GROWING = new Set(["content", "thinking"]);
const ENVELOPE = ["type", "object", "choices", "delta", "output", "model", "created_at", "message"];

export class OllamaStrategy {
  name = "ollama";
  leaksIntoText = true;
  implementation = { name: "ollama-js-example", version: "1.0.0", language: "javascript" };

  // -- recognising -------------------------------------------------------------------------
  /** An Ollama chat chunk, or an assembled Ollama assistant message. Never throws. */
  recognizes(shape) {
    try {
      return isChunk(shape) || isMessage(shape);
    } catch {
      return false;
    }
  }

  /** True on the chunk with `"done": true`, unless its `done_reason` is `"length"`: a turn
   * cut by `num_predict` is not finished, and the message itself cannot say so. */
  isDone(chunk) {
    return isObject(chunk) && chunk.done === true && get(chunk, "done_reason") !== "length";
  }

  // -- reassembly --------------------------------------------------------------------------
  /** Fold one NDJSON object into `acc.root`; return the content text it added. */
  accumulate(acc, chunk) {
    if (!isObject(chunk)) throw new BridgeError("MalformedChunk", `ollama: a chunk is a JSON object, got ${typeName(chunk)}`);
    if (get(chunk, "error") != null) {
      throw new BridgeError("StreamError", `ollama: the server reported an error in the stream: ${pyStr(chunk.error)}`, chunk);
    }
    if (!acc.state.started) {
      acc.state.started = true;
      acc.state.keys = new Set();
      acc.root = {};
    }
    const delta = get(chunk, "message");
    if (delta == null) return "";
    if (!isObject(delta)) throw new BridgeError("MalformedChunk", `ollama: 'message' must be an object, got ${typeName(delta)}`);
    const calls = this.checked(delta);
    const seen = acc.state.keys;
    const message = acc.root;
    for (const [key, value] of Object.entries(delta)) {
      const growing = GROWING.has(key);
      if (growing && value === null) continue;
      if (seen.has(key) && !(growing && value) && !(key === "tool_calls" && calls.length)) continue;
      if (growing) {
        put(message, key, (get(message, key) ?? "") + value);
      } else if (key === "tool_calls") {
        if (calls.length) { // EXTENDED: every chunk's calls are new, whole calls
          if (!Array.isArray(get(message, key))) put(message, key, []);
          message.tool_calls.push(...calls.map(copy));
        }
      } else {
        put(message, key, copy(value));
      }
      seen.add(key);
    }
    return typeof delta.content === "string" ? delta.content : "";
  }

  /** The chunk's tool calls, after checking the message's fields (nothing is folded yet). */
  checked(delta) {
    for (const key of GROWING) {
      const value = get(delta, key);
      if (value != null && typeof value !== "string") {
        throw new BridgeError("MalformedChunk", `ollama: message.${key} must be a string, got ${typeName(value)}`);
      }
    }
    const calls = get(delta, "tool_calls");
    if (calls == null) return [];
    if (!Array.isArray(calls)) throw new BridgeError("MalformedChunk", `ollama: message.tool_calls must be a list, got ${typeName(calls)}`);
    calls.forEach((entry, i) => {
      if (!isObject(entry) || !isObject(get(entry, "function"))) {
        throw new BridgeError("MalformedChunk", `ollama: message.tool_calls[${i}] must be an object with a 'function' object`);
      }
    });
    return calls;
  }

  // -- reading the message -----------------------------------------------------------------
  /** One call per `tool_calls` entry, in order; malformed entries carry `error`. */
  extract(message) {
    const entries = isObject(message) ? get(message, "tool_calls") : undefined;
    return Array.isArray(entries) ? entries.map((entry, i) => toCall(i, entry)) : [];
  }

  /** The `content` text ("" when there is none). */
  contentText(message) {
    const text = isObject(message) ? get(message, "content") : undefined;
    return typeof text === "string" ? text : "";
  }

  /** The first call's name: Ollama sends calls whole, so it is complete or absent. */
  formingName(message) {
    const calls = this.extract(message);
    return calls.length ? calls[0].name || null : null;
  }

  /** The assistant turn as Ollama takes it back, then one `tool` message per record. */
  resultMessages(message, records) {
    if (!isObject(message)) throw new BridgeError("ValueError", `ollama: the message is a JSON object, got ${typeName(message)}`);
    if (!Array.isArray(records)) throw new BridgeError("ValueError", `ollama: the records are a list, got ${typeName(records)}`);
    const calls = this.extract(message);
    for (const record of records) {
      if (!isObject(record) || !isObject(get(record, "call")) || typeof get(record, "result") !== "string" ||
          typeof get(record, "is_error") !== "boolean") {
        throw new BridgeError("ValueError", `ollama: expected tool call records {call, result, is_error}, got ${typeName(record)}`);
      }
      if (!calls.some((c) => c.error === null && same(record.call, c))) {
        throw new BridgeError("ValueError", `ollama: the result for ${JSON.stringify(record.call.name)} answers no call in the message`);
      }
    }
    const turn = { role: "assistant", content: this.contentText(message) };
    const thinking = get(message, "thinking");
    if (typeof thinking === "string" && thinking) turn.thinking = thinking;
    if (calls.length) {
      turn.tool_calls = calls.map((c, index) => ({ type: "function", function: { index, name: c.name, arguments: copy(c.arguments) } }));
    }
    return [turn, ...records.map((r) => ({ role: "tool", content: r.result, tool_name: r.call.name }))];
  }
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** An own key's value (a key that is only on the prototype, like "constructor", is absent). */
function get(object, key) {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function put(object, key, value) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

function copy(value) {
  if (Array.isArray(value)) return value.map(copy);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)]));
  return value;
}

function typeName(value) {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

function pyStr(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isChunk(shape) {
  return (
    isObject(shape) &&
    typeof get(shape, "model") === "string" &&
    typeof get(shape, "created_at") === "string" &&
    isObject(get(shape, "message")) &&
    typeof (Object.hasOwn(shape, "done") ? shape.done : false) === "boolean" &&
    !["choices", "object", "type"].some((k) => Object.hasOwn(shape, k))
  );
}

function isMessage(shape) {
  if (!isObject(shape) || get(shape, "role") !== "assistant") return false;
  if (typeof (Object.hasOwn(shape, "content") ? shape.content : "") !== "string") return false;
  if (ENVELOPE.some((k) => Object.hasOwn(shape, k))) return false;
  const entries = get(shape, "tool_calls");
  return Array.isArray(entries) && entries.length > 0 && entries.every(
    (e) => isObject(e) && isObject(get(e, "function")) && isObject(get(e.function, "arguments")));
}

function toCall(i, entry) {
  const call = (name, fields = {}) => ({ name, arguments: {}, id: null, raw_arguments: null, error: null, ...fields });
  const fn = isObject(entry) ? get(entry, "function") : undefined;
  if (!isObject(fn)) return call("", { error: `tool_calls[${i}] has no 'function' object` });
  const name = get(fn, "name");
  const id = typeof get(entry, "id") === "string" ? entry.id : null;
  if (typeof name !== "string" || !name) return call("", { id, error: `tool_calls[${i}].function has no name` });
  const args = get(fn, "arguments");
  if (args == null) return call(name, { id });
  if (isObject(args)) return call(name, { arguments: copy(args), id });
  if (typeof args === "string") { // some servers in front of Ollama serialise them
    let parsed;
    try {
      parsed = args.trim() ? JSON.parse(args) : {};
    } catch (e) {
      return call(name, { id, raw_arguments: args, error: `arguments are not JSON: ${e.message}` });
    }
    if (isObject(parsed)) return call(name, { arguments: parsed, id, raw_arguments: args });
    return call(name, { id, raw_arguments: args, error: "arguments do not hold a JSON object" });
  }
  return call(name, { id, error: `arguments must be a JSON object, got ${typeName(args)}` });
}

function same(wanted, found) {
  if (wanted.id != null && found.id != null) return wanted.id === found.id;
  return wanted.name === found.name && equal(wanted.arguments ?? {}, found.arguments);
}

/** JSON equality: objects whatever their key order, arrays in order. */
function equal(a, b) {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

const { serve } = await import(process.env.MCS_BRIDGE_JS);
serve(new OllamaStrategy());
