/**
 * The strategy bridge's JavaScript server (docs/bridge.md, protocol version 1): turns an
 * object with the protocol's members into a peer the suite runs with
 * `--mcs-strategy="exec:node my_strategy.mjs"`. ESM, no dependencies, node >= 22.
 *
 *     const { serve } = await import(process.env.MCS_BRIDGE_JS);
 *     serve(new MyStrategy());
 *
 * It reads requests from stdin, one JSON object a line, and answers each in order on stdout
 * with one line carrying the request's id. Members may be named in camelCase or snake_case
 * (`isDone` or `is_done`, `contentText`, `formingName`, `resultMessages`, `leaksIntoText`);
 * a member may return a promise. `accumulate(acc, chunk)` gets `acc = {root, state}` per
 * stream (`as_dict` answers `acc.root`, null before the stream's first chunk). What the
 * strategy throws is answered as data: a `BridgeError` with its protocol type, anything else
 * as `Error`, and serving goes on. While serving, whatever writes to stdout (`console.log`,
 * `console.info`, `process.stdout.write`, ...) goes to stderr, so the protocol's lines stay
 * the only output. The process exits 0 when stdin ends. A line it cannot read is answered
 * with a ValueError when its id can be read; a line that is no request ends the process
 * with code 2 and the reason on stderr.
 *
 * Beyond the strategy's members: `accumulate` with `and_is_done` also answers `is_done` of
 * the chunk in the same reply, and `cpu_time` answers the CPU seconds spent in the
 * strategy's members and in writing their answers (what COST times).
 *
 * Numbers cross as Python's `json` module reads and writes them: an integer past 2**53
 * reaches the strategy as a BigInt (and goes back with all its digits), NaN and Infinity
 * as the bare tokens.
 */
import { createInterface } from "node:readline";

export const PROTOCOL = 1;
const TYPES = new Set(["MalformedChunk", "StreamError", "ValueError", "Error"]);
const MARK = Symbol.for("mcs-conformance.bridge.error"); // shared by every copy of this file
const MEMBERS = ["recognizes", "accumulate", "is_done", "extract", "content_text", "forming_name",
  "result_messages", "render"];
const NUM = "\u0000mcs-bridge-number:"; // a non-finite number while it crosses JSON

/** An error of one of the protocol's types: `new BridgeError("MalformedChunk", message)`,
 * `new BridgeError("StreamError", message, payload)` (the provider's error event),
 * `new BridgeError("ValueError", message)` (a reading method refusing a value). */
export class BridgeError extends Error {
  constructor(type, message, payload = null) {
    if (!TYPES.has(type)) {
      throw new TypeError(`BridgeError: type must be one of ${[...TYPES].join(", ")}, got ${JSON.stringify(type)}`);
    }
    super(message);
    this.name = type;
    this.type = type;
    this.payload = payload;
    this[MARK] = true;
  }
}

const camel = (snake) => snake.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** The strategy's method for a snake_case protocol member, bound, or undefined. */
function member(strategy, snake) {
  for (const key of [camel(snake), snake]) {
    if (typeof strategy[key] === "function") return strategy[key].bind(strategy);
  }
  return undefined;
}

function field(strategy, snake) {
  const key = camel(snake);
  return strategy[key] !== undefined ? strategy[key] : strategy[snake];
}

/** What the strategy threw, as the reply's `error` object. */
export function errorToWire(thrown) {
  if (thrown !== null && typeof thrown === "object" && thrown[MARK] === true && TYPES.has(thrown.type)) {
    const out = { type: thrown.type, name: thrown.constructor?.name || "BridgeError", message: String(thrown.message ?? "") };
    if (thrown.type === "StreamError") out.payload = thrown.payload === undefined ? null : thrown.payload;
    return out;
  }
  if (thrown instanceof Error) {
    return { type: "Error", name: thrown.constructor?.name || thrown.name || "Error", message: String(thrown.message ?? "") };
  }
  let text; // a thrown string, number, plain object, undefined ...
  try { text = typeof thrown === "string" ? thrown : JSON.stringify(thrown) ?? String(thrown); } catch { text = String(thrown); }
  const name = thrown === null ? "null" : typeof thrown === "object" ? thrown.constructor?.name || "Object" : typeof thrown;
  return { type: "Error", name, message: `a non-Error value was thrown: ${text}` };
}

// An integer past 2**53 is read as a BigInt (JSON.parse's source text, node >= 22) and
// written back with all its digits; a number that large is a float, written as one
// (5.059354110044745e+16, not 50593541100447450); a non-finite number crosses as a marked
// string. (JavaScript has one number type: a float 1.0 goes back as 1, which Python reads
// as equal.)
const revive = (_, v, context) => {
  if (typeof v === "number") {
    return !Number.isSafeInteger(v) && /^-?\d+$/.test(context?.source) ? BigInt(context.source) : v;
  }
  return typeof v === "string" && v.startsWith(NUM) ? Number(v.slice(NUM.length)) : v;
};

/** A line as JSON; NaN, Infinity and -Infinity outside strings are read as those numbers. */
export function parseLine(line) {
  try {
    return /\d{16}/.test(line) ? JSON.parse(line, revive) : JSON.parse(line);
  } catch (first) {
    if (!/NaN|Infinity/.test(line)) throw first;
    const marked = line.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g,
      (m) => (m[0] === '"' ? m : `"\\u0000mcs-bridge-number:${m}"`));
    return JSON.parse(marked, revive);
  }
}

/** A value as one line of JSON, big integers whole, non-finite numbers as bare tokens. */
export function formatLine(value) {
  let marked = false;
  const text = JSON.stringify(value, (_, v) => {
    if (typeof v === "bigint") return JSON.rawJSON(String(v));
    if (typeof v !== "number" || Number.isSafeInteger(v)) return v;
    if (!Number.isFinite(v)) { marked = true; return NUM + String(v); }
    return Number.isInteger(v) ? JSON.rawJSON(v.toExponential()) : v; // 5e16 was a float: stays one
  });
  return marked ? text.replace(/"\\u0000mcs-bridge-number:(NaN|-?Infinity)"/g, "$1") : text;
}

function die(message) {
  process.stderr.write(`mcs-conformance bridge server: ${message}\n`);
  process.exit(2);
}

/** Serve `strategy` over stdin and stdout until stdin ends, then exit 0. */
export async function serve(strategy) {
  if (strategy === null || typeof strategy !== "object" && typeof strategy !== "function") {
    die(`serve() takes the strategy object, got ${strategy === null ? "null" : typeof strategy}`);
  }
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr); // console.log & co. included
  const methods = Object.fromEntries(MEMBERS.map((m) => [m, member(strategy, m)]).filter(([, f]) => f));
  const streams = new Map();
  const accumulator = (n) => {
    let acc = streams.get(n);
    if (acc === undefined) streams.set(n, (acc = { root: null, state: {} }));
    return acc;
  };
  const call = (name, ...args) => {
    const method = methods[name];
    if (method === undefined) throw new BridgeError("Error", `the strategy has no member ${name} (nor ${camel(name)})`);
    return method(...args);
  };
  let spent = 0; // CPU microseconds in the strategy's members and in writing their answers
  const cpu = () => { const used = process.cpuUsage(); return used.user + used.system; };
  const commands = {
    start: () => {
      const name = field(strategy, "name");
      const leaks = field(strategy, "leaks_into_text");
      if (typeof name !== "string" || name === "") throw new TypeError(`the strategy's name must be a non-empty string, got ${JSON.stringify(name)}`);
      if (typeof leaks !== "boolean") throw new TypeError(`the strategy's leaksIntoText (or leaks_into_text) must be true or false, got ${JSON.stringify(leaks)}`);
      const own = strategy.implementation;
      return {
        protocol: PROTOCOL, name, leaks_into_text: leaks,
        implementation: { name, version: "0", language: "javascript", ...(own && typeof own === "object" ? own : {}) },
        members: [...Object.keys(methods), "cpu_time"],
      };
    },
    recognizes: (r) => call("recognizes", r.shape),
    accumulate: (r) => call("accumulate", accumulator(r.stream), r.chunk),
    as_dict: (r) => streams.get(r.stream)?.root ?? null,
    is_done: (r) => call("is_done", r.chunk),
    extract: (r) => call("extract", r.message),
    content_text: (r) => call("content_text", r.message),
    forming_name: (r) => call("forming_name", r.message),
    result_messages: (r) => call("result_messages", r.message, r.records),
    render: (r) => call("render", r.calls),
    ping: () => null,
    cpu_time: () => spent / 1e6,
  };
  const untimed = new Set(["start", "ping", "cpu_time"]);
  const answer = async (command, request) => { // {ok} or {error}: what the strategy answered
    try {
      let ok = command(request);
      if (ok !== null && typeof ok?.then === "function") ok = await ok;
      return { ok: ok === undefined ? null : ok };
    } catch (thrown) {
      return { error: errorToWire(thrown) };
    }
  };
  const written = (reply) => { // a reply that cannot be written (a cycle, say) is an error
    try { return formatLine(reply); } catch (e) { return formatLine({ id: reply.id, error: { ...errorToWire(e), type: "Error" } }); }
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let request;
    try {
      request = parseLine(line);
    } catch (e) { // answered when its id can be read, as the protocol asks
      const id = /"id"\s*:\s*(\d+)\s*[,}]/.exec(line)?.[1];
      if (id === undefined) die(`a line that is not JSON (${e.message}): ${line.slice(0, 200)}`);
      write(formatLine({ id: Number(id), error: { type: "ValueError", name: e.constructor.name, message: `the request is no JSON this server reads: ${e.message}` } }) + "\n");
      continue;
    }
    if (request === null || typeof request !== "object" || !Number.isInteger(request.id)) {
      die(`a request is an object with an integer id, got: ${line.slice(0, 200)}`);
    }
    if (Array.isArray(request.drop)) for (const n of request.drop) streams.delete(n);
    const timed = !untimed.has(request.cmd);
    const started = timed ? cpu() : 0;
    const command = Object.hasOwn(commands, request.cmd) ? commands[request.cmd] : undefined;
    const reply = command === undefined
      ? { error: errorToWire(new BridgeError("Error", `unknown command ${JSON.stringify(request.cmd)}`)) }
      : await answer(command, request);
    if (request.cmd === "accumulate" && request.and_is_done === true && "ok" in reply && methods.is_done) {
      reply.is_done = await answer(commands.is_done, request); // spares the suite a round trip
    }
    const text = written({ id: request.id, ...reply });
    if (timed) spent += cpu() - started;
    write(text + "\n");
  }
  write("", () => process.exit(0));
}
