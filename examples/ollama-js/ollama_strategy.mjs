/**
 * An Ollama `/api/chat` strategy in JavaScript, served to the conformance suite through the
 * bridge (docs/bridge.md): the same behaviour as examples/ollama/ollama_strategy.py, run on
 * the same corpus, to show that a strategy in another language passes the suite.
 *
 * The wire is NDJSON: one object per line, `{"model", "created_at", "message": {...},
 * "done": false}`, and a last one with `"done": true`, `done_reason` and timings. A call
 * arrives whole in one line, its arguments an object. An error during the stream arrives as
 * a line `{"error": "..."}`.
 *
 * The native message is the WHOLE `stream=false` body, not its inner `message`: only the body
 * says (`done`, `done_reason`) whether the turn finished. The server folds its own chunks into
 * that body (server/routes.go `writeChatResponse`), and so does `accumulate`: every field is
 * the last chunk's, except `message.content` and `message.thinking` (the pieces joined) and
 * `message.tool_calls` and `logprobs` (every chunk's list EXTENDED: calls have no key to merge
 * on, so two equal calls are two calls).
 *
 * Error texts are written as the Python example writes them (`pyDescribe`), so that the
 * three examples' golden snapshots are one.
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

const JOINED = ["content", "thinking"]; // message strings the server concatenates
const OTHER_WIRES = ["choices", "object", "type", "delta", "output", "response", "error"];

export class OllamaStrategy {
  name = "ollama";
  leaksIntoText = true;
  implementation = { name: "ollama-js-example", version: "1.0.0", language: "javascript" };

  // -- recognising -------------------------------------------------------------------------
  /** A chunk or a body: `model` and `created_at` strings, a `message` object, a boolean
   * `done` if any, no key of another wire's envelope. Never throws. */
  recognizes(shape) {
    try {
      return (
        isObject(shape) &&
        typeof get(shape, "model") === "string" &&
        typeof get(shape, "created_at") === "string" &&
        isObject(get(shape, "message")) &&
        typeof (Object.hasOwn(shape, "done") ? shape.done : false) === "boolean" &&
        !OTHER_WIRES.some((k) => Object.hasOwn(shape, k))
      );
    } catch {
      return false;
    }
  }

  /** True on the chunk with `"done": true`, unless its `done_reason` is `"length"`: a turn
   * cut by `num_predict` did not finish, so none of its calls may run. */
  isDone(chunk) {
    return isObject(chunk) && chunk.done === true && get(chunk, "done_reason") !== "length";
  }

  // -- reassembly --------------------------------------------------------------------------
  /** Fold one NDJSON object into the body `acc.root`; return the content text it added. */
  accumulate(acc, chunk) {
    if (!isObject(chunk)) throw malformed(`ollama: a chunk is a JSON object, got ${pyDescribe(chunk)}`);
    if (Object.hasOwn(chunk, "error")) { // the server gave up mid-stream: what came before is no answer
      throw new BridgeError("StreamError", `ollama: the server reported an error in the stream: ${pyRepr(chunk.error)}`, chunk);
    }
    const delta = checked(chunk); // refuse a bad line before any of it is folded
    if (acc.state.done) throw malformed(`ollama: a chunk after the done chunk: ${pyDescribe(chunk)}`);
    if (!acc.state.started) {
      acc.state.started = true;
      acc.root = { message: { content: "" } }; // the server's body always has content
    }
    const body = acc.root;

    // The top level is the last chunk's, except logprobs, which the server extends.
    for (const key of Object.keys(body)) {
      if (key !== "message" && key !== "logprobs" && !Object.hasOwn(chunk, key)) delete body[key];
    }
    for (const [key, value] of Object.entries(chunk)) {
      if (key === "logprobs") {
        if (value?.length) {
          if (!Array.isArray(get(body, key))) put(body, key, []);
          body.logprobs.push(...value.map(copy));
        }
      } else if (key !== "message") {
        put(body, key, copy(value));
      }
    }

    // So is the message, except the joined texts and the extended calls.
    const message = body.message;
    for (const key of Object.keys(message)) {
      if (!JOINED.includes(key) && key !== "tool_calls" && !Object.hasOwn(delta, key)) delete message[key];
    }
    for (const [key, value] of Object.entries(delta)) {
      if (JOINED.includes(key)) {
        if (!value) continue; // an empty thinking stays out of the body, as the server leaves it out
        put(message, key, (get(message, key) ?? "") + value);
      } else if (key === "tool_calls") {
        if (value?.length) { // EXTENDED: every chunk's calls are new, whole calls
          if (!Array.isArray(get(message, key))) put(message, key, []);
          message.tool_calls.push(...value.map(copy));
        }
      } else {
        put(message, key, copy(value));
      }
    }

    if (chunk.done === true) acc.state.done = true;
    return typeof delta.content === "string" ? delta.content : "";
  }

  // -- reading the message -----------------------------------------------------------------
  /** One call per `message.tool_calls` entry, in order. Malformed entries, and every call of a
   * body that is not done (or done by length), are error calls: never run. */
  extract(message) {
    const entries = inner(message).tool_calls;
    if (!Array.isArray(entries)) return [];
    const whyNot = unfinished(message);
    const ids = new Set();
    return entries.map((entry, i) => {
      let call = toCall(i, entry);
      if (call.error === null && whyNot) call = { ...call, error: whyNot };
      else if (call.error === null && call.id !== null && ids.has(call.id)) {
        call = { ...call, error: `id ${pyRepr(call.id)} is used twice` }; // a result could answer either
      }
      if (call.id !== null) ids.add(call.id);
      return call;
    });
  }

  /** `message.content` ("" when there is none). */
  contentText(message) {
    const text = inner(message).content;
    return typeof text === "string" ? text : "";
  }

  /** The first call's name: calls arrive whole, so it is complete or absent. */
  formingName(message) {
    const entries = inner(message).tool_calls;
    if (!Array.isArray(entries) || !entries.length) return null;
    return toCall(0, entries[0]).name || null;
  }

  /** The assistant turn as `/api/chat` takes it back (content, thinking, the calls that may
   * run), then one `tool` message per record with `tool_name` and `tool_call_id`. A call sent
   * without an id is replayed as `call_mcs_<n>` (its position among the runnable calls). */
  resultMessages(message, records) {
    const turnMessage = inner(message);
    if (!Array.isArray(records)) throw valueError(`ollama: records must be a sequence of ToolCallRecord, got ${pyType(records)}`);
    records.forEach((record, i) => {
      if (!isObject(record) || !isObject(get(record, "call")) || typeof get(record, "result") !== "string" ||
          typeof get(record, "is_error") !== "boolean") {
        throw valueError(`ollama: records[${i}] is ${pyType(record)}, not a ToolCallRecord`);
      }
    });
    const calls = this.extract(message).filter((c) => c.error === null);
    const ids = calls.map((c, i) => c.id ?? `call_mcs_${i}`);

    // Each record answers one call: the first it matches that no earlier record answered (two
    // equal calls without ids get one result each), else the first it matches at all.
    const answered = new Set();
    const results = records.map((record) => {
      const wanted = { name: record.call.name, id: record.call.id ?? null, arguments: record.call.arguments ?? {} };
      const matching = calls.flatMap((c, i) => (answers(wanted, c) ? [i] : []));
      if (!matching.length) {
        throw valueError(`ollama: the result for ${pyRepr(wanted.name)} (id ${pyRepr(wanted.id)}) answers no call in the message`);
      }
      const at = matching.find((i) => !answered.has(i)) ?? matching[0];
      answered.add(at);
      return { role: "tool", content: record.result, tool_name: wanted.name, tool_call_id: ids[at] };
    });

    const turn = { role: "assistant", content: this.contentText(message) };
    const thinking = get(turnMessage, "thinking");
    if (typeof thinking === "string" && thinking) turn.thinking = thinking; // replayed with the calls
    if (calls.length) {
      turn.tool_calls = calls.map((c, index) => (
        { type: "function", id: ids[index], function: { index, name: c.name, arguments: copy(c.arguments) } }));
    }
    return [turn, ...results];
  }
}

/** The chunk's `message`, once every field the fold reads has the type the server writes. */
function checked(chunk) {
  const delta = get(chunk, "message");
  if (!isObject(delta)) throw malformed(`ollama: a chunk needs a 'message' object: ${pyDescribe(chunk)}`);
  if (typeof (Object.hasOwn(chunk, "done") ? chunk.done : false) !== "boolean") throw malformed(`ollama: 'done' must be a boolean: ${pyDescribe(chunk)}`);
  for (const key of JOINED) {
    const value = get(delta, key);
    if (value != null && typeof value !== "string") throw malformed(`ollama: message.${key} must be a string, got ${pyDescribe(value)}`);
  }
  const calls = get(delta, "tool_calls");
  if (calls != null && !Array.isArray(calls)) throw malformed(`ollama: message.tool_calls must be a list, got ${pyDescribe(calls)}`);
  (calls ?? []).forEach((entry, i) => {
    if (!isObject(entry) || !isObject(get(entry, "function"))) {
      throw malformed(`ollama: message.tool_calls[${i}] must be an object with a 'function' object, got ${pyDescribe(entry)}`);
    }
  });
  const logprobs = get(chunk, "logprobs");
  if (logprobs != null && !Array.isArray(logprobs)) throw malformed(`ollama: 'logprobs' must be a list, got ${pyDescribe(logprobs)}`);
  return delta;
}

/** A request-side assistant turn (`{role, content, tool_calls}`): what `resultMessages`
 * replays, which the reading members read back whole. */
function isTurn(message) {
  return isObject(message) && !Object.hasOwn(message, "message") && Object.hasOwn(message, "role");
}

/** The body's `message` object (or the replayed turn itself), as an object with own keys only. */
function inner(message) {
  if (!isObject(message)) throw valueError(`ollama: the message is a /api/chat body (a JSON object), got ${pyDescribe(message)}`);
  const found = isTurn(message) ? message : Object.hasOwn(message, "message") ? message.message : {};
  if (!isObject(found)) throw valueError(`ollama: the body's 'message' must be an object, got ${pyDescribe(found)}`);
  return { tool_calls: get(found, "tool_calls"), content: get(found, "content"), thinking: get(found, "thinking") };
}

/** Why no call of the body may run, or null. The body says it: `done` and `done_reason`. */
function unfinished(body) {
  if (isTurn(body)) return null; // a turn the client replays is one it already held whole
  if (get(body, "done") !== true) return "the stream has not finished (no chunk with done: true)";
  if (get(body, "done_reason") === "length") return "the output was cut by its length limit (done_reason: length)";
  return null;
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

function malformed(text) {
  return new BridgeError("MalformedChunk", text);
}

function valueError(text) {
  return new BridgeError("ValueError", text);
}

// -- error texts, as Python writes them ------------------------------------------------------
/** The Python type name of a JSON value. */
function pyType(value) {
  if (value === null || value === undefined) return "NoneType";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object") return "dict";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  return Number.isInteger(value) ? "int" : "float";
}

/** Python's `repr` of a JSON value: 'text' in single quotes unless it holds one, True, None. */
function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value.replace(/[\\\n\r\t]/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]);
  return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
}

function pyFloat(value) {
  const text = String(value);
  return /[.e]/.test(text) ? text.replace(/e([+-])(\d)$/, "e$10$2") : `${text}.0`;
}

/** A short description of a value for an error text, as the Python example words it. */
function pyDescribe(value) {
  let text;
  if (isObject(value)) {
    const keys = Object.keys(value);
    const hints = ["type", "object"].filter((k) => typeof get(value, k) === "string").map((k) => `${k}=${pyRepr(value[k])}`);
    text = `dict with keys [${keys.slice(0, 8).map(pyRepr).join(", ")}${keys.length > 8 ? ", ..." : ""}]`;
    if (hints.length) text += ` (${hints.join(", ")})`;
  } else if (typeof value === "string") {
    text = `str ${pyRepr(value.slice(0, 60))}${value.length > 60 ? "..." : ""}`;
  } else {
    text = `${pyType(value)} ${pyRepr(value)}`;
  }
  return text.length <= 120 ? text : text.slice(0, 117) + "...";
}

/** One `tool_calls` entry as a call; what it lacks makes it an error call. */
function toCall(i, entry) {
  const call = (name, fields = {}) => ({ name, arguments: {}, id: null, raw_arguments: null, error: null, ...fields });
  const fn = isObject(entry) ? get(entry, "function") : undefined;
  if (!isObject(fn)) return call("", { error: `tool_calls[${i}] has no 'function' object` });
  const rawId = get(entry, "id"); // current servers send one; older ones none
  const id = typeof rawId === "string" && rawId ? rawId : null;
  const name = get(fn, "name");
  if (typeof name !== "string" || !name) return call("", { id, error: `tool_calls[${i}].function has no name` });
  if (rawId != null && id === null) {
    return call(name, { error: `tool_calls[${i}].id must be a non-empty string, got ${pyDescribe(rawId)}` });
  }
  const args = get(fn, "arguments");
  if (args == null || args === "") return call(name, { id }); // a tool without parameters
  if (isObject(args)) return call(name, { arguments: copy(args), id });
  if (typeof args === "string") { // a server in front of Ollama may send them as JSON text
    let parsed;
    try {
      parsed = JSON.parse(args);
    } catch (e) {
      return call(name, { id, raw_arguments: args, error: `arguments are not JSON: ${e.message}` });
    }
    if (isObject(parsed)) return call(name, { arguments: parsed, id, raw_arguments: args });
    return call(name, { id, raw_arguments: args, error: "arguments do not hold a JSON object" });
  }
  return call(name, { id, error: `arguments must be a JSON object, got ${pyDescribe(args)}` });
}

/** Whether a record's call is this call: by id where either has one, else by name and arguments. */
function answers(wanted, found) {
  if (wanted.id !== null || found.id !== null) return wanted.id === found.id && wanted.name === found.name;
  return wanted.name === found.name && equal(wanted.arguments, found.arguments);
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
