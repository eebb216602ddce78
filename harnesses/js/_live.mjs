/**
 * One SDK stream fed live, a chunk at a time: what the three JavaScript SDK harnesses share.
 *
 * The suite hands a strategy one chunk at a time and may read the message after any of them;
 * the SDKs read the response body themselves, through the `fetch` their client is given
 * (openai README "Customizing the fetch client": `new OpenAI({ fetch })`; the anthropic client
 * takes the same `fetch` option, client.d.ts `ClientOptions.fetch`). So each stream is one
 * request on the SDK's own client, answered by a `LiveBody`:
 *
 * - `liveFetch`: the `fetch` given to the client. It answers a request with the `LiveBody` its
 *   `x-harness-stream` header names (status 200, `text/event-stream`), once; any other request
 *   gets a 404 JSON error. No network is touched.
 * - `LiveBody`: the response body, a byte `ReadableStream` with a high-water mark of 0, so it
 *   holds nothing the SDK has not asked for. `push(bytes)` hands one chunk's SSE bytes to the
 *   SDK (they wait in a queue until the SDK reads) and resolves once the SDK has read them and
 *   handled what they hold: when the stream's `pull()` is called again with the queue empty
 *   (the SDK's loop came back for more bytes, so the events of the bytes before were handled
 *   synchronously in that loop), then one macrotask turn (`setImmediate`) so that handlers
 *   scheduled as microtasks have run too. When the SDK stops reading instead (its stream ended
 *   at `data: [DONE]`, failed, or cancelled the body), the promise the adapter gives as `ended`
 *   settles the push. Bytes the SDK reads without yielding an event (a `ping`, an event
 *   without a name) need no special case: the SDK simply asks for more. `push(bytes, true)`
 *   ends the body after those bytes, as the provider closing the response does: once the SDK
 *   has read them, its next read finds the end of the body (the `ReadableStream` closes), the
 *   SDK runs what it does at the end of a response, and the push settles when the SDK's stream
 *   is over (`ended`). Which chunk ends the body is each adapter's choice, in its header.
 * - `sseBytes(chunk, named)`: the bytes the provider sent for one chunk, framed as
 *   harnesses/_wire.py `sse_body` frames them: `data: <json>\n\n`, preceded by
 *   `event: <type>\n` for the Responses and Anthropic formats (`named`) when the chunk's `type`
 *   is a string; a string chunk (`"[DONE]"`) is written as sent. The JSON is the bridge's own
 *   `formatLine` (integers past 2**53 with every digit, NaN as Python's `json` writes it; a
 *   lone surrogate as a `\ud83c` escape, as `JSON.stringify` writes it).
 *
 * Nothing here parses or accumulates: the SDK reads the bytes.
 */

const HEADER = "x-harness-stream";
const BODIES = new Map();
let tokens = 0;
const encoder = new TextEncoder();

export { HEADER };

/** The SSE bytes of one chunk (see the header); `formatLine` is the bridge server's. */
export function sseBytes(chunk, named, formatLine) {
  if (typeof chunk === "string") return encoder.encode(`data: ${chunk}\n\n`);
  const data = formatLine(chunk);
  const name = named && chunk !== null && typeof chunk === "object" && typeof chunk.type === "string" ? chunk.type : null;
  return encoder.encode((name !== null ? `event: ${name}\n` : "") + `data: ${data}\n\n`);
}

export class LiveBody {
  #queue = [];
  #controller = null;
  #pendingPull = null; // resolves the pull() the SDK is waiting in
  #hungry = null; // resolves the push() waiting for the SDK to come back for more
  #settled = false;
  #closing = false; // the body ends once the queue is read

  constructor() {
    this.token = `stream-${tokens++}`;
    this.pushed = 0; // chunks pushed
    this.pulls = 0; // pull() calls with nothing queued: the SDK asking for bytes not fed yet
    this.ended = null; // set by the adapter: a promise that settles when the SDK's stream is over
    this.stream = new ReadableStream({
      start: (controller) => { this.#controller = controller; },
      pull: (controller) => this.#pull(controller),
      cancel: () => { this.#settled = true; this.#wake(); }, // the SDK stopped reading (at [DONE], say)
    }, { highWaterMark: 0 });
    BODIES.set(this.token, this);
  }

  get headers() {
    return { [HEADER]: this.token };
  }

  #wake() {
    const hungry = this.#hungry;
    this.#hungry = null;
    if (hungry) hungry();
  }

  #pull(controller) {
    if (this.#queue.length) {
      controller.enqueue(this.#queue.shift());
      return undefined;
    }
    if (this.#closing) { // every byte read: the end of the body
      controller.close();
      this.#settled = true;
      this.#wake();
      return undefined;
    }
    this.pulls += 1;
    this.#wake();
    return new Promise((resolve) => { this.#pendingPull = resolve; });
  }

  /** Hand one chunk's bytes to the SDK; resolves when it has read and handled them (or
   * stopped reading). `last`: the body ends after them; resolves once the SDK's stream is over. */
  async push(bytes, last = false) {
    this.pushed += 1;
    if (this.#settled) return;
    if (last) this.#closing = true;
    const hungry = new Promise((resolve) => { this.#hungry = resolve; });
    if (this.#pendingPull) {
      const resume = this.#pendingPull;
      this.#pendingPull = null;
      this.#controller.enqueue(bytes);
      resume();
    } else {
      this.#queue.push(bytes);
    }
    const over = this.ended ? this.ended.then(() => "ended", () => "ended") : new Promise(() => {});
    if ((await Promise.race([hungry, over])) === "ended") this.#settled = true;
    if (this.#settled || last) await over; // the SDK stopped reading: let it finish what it does at the end
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Whether the body has ended (the SDK read its end, stopped reading, or its stream is over). */
  get over() {
    return this.#settled;
  }

  /** Whether every byte pushed has been handed to the SDK. */
  get drained() {
    return this.#queue.length === 0;
  }
}

/** The `fetch` given to the SDK's client: a request is answered by the live body it names. */
export async function liveFetch(url, init = {}) {
  const token = new Headers(init.headers ?? {}).get(HEADER) ?? "";
  const body = BODIES.get(token);
  if (body === undefined) {
    return new Response(JSON.stringify({ error: { message: `no live body for ${url}` } }),
      { status: 404, headers: { "content-type": "application/json" } });
  }
  BODIES.delete(token);
  return new Response(body.stream, { status: 200, headers: { "content-type": "text/event-stream" } });
}
