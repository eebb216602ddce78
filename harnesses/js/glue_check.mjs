/**
 * The glue check's JavaScript runner: a JavaScript adapter's two views of each case, for
 * harnesses/glue_check.py to compare.
 *
 *     node harnesses/js/glue_check.mjs harnesses/js/<adapter>.mjs  < cases.jsonl
 *
 * Reads one case JSON per stdin line (a corpus case file's object, as the corpus holds it) and
 * writes to stdout, one JSON line each: first `{"GLUE_LISTED": {...}}` (the adapter's export),
 * then per case the adapter's `glueView(case)` (`{library, adapter}`, or `null` for a case it
 * has no library view of), or `{"error": "..."}` when that call threw or did not settle within
 * `MCS_GLUE_TIMEOUT` seconds (default 60). The lines are written by the bridge server's
 * `formatLine` (big integers whole, NaN as a bare token), as the adapter's messages cross the
 * bridge. Anything a library prints goes to stderr.
 *
 * The adapter module is imported, not run: it starts the bridge server only as the process's
 * entry point (`_glue.isMain`). `_glue.mjs` needs `MCS_BRIDGE_JS` (the bridge server module,
 * `mcs-conformance bridge js` prints it); unset, this checkout's
 * mcs_conformance/bridge/server.mjs is used.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const USAGE = "usage: node harnesses/js/glue_check.mjs <adapter.mjs>  (one case JSON per stdin line)";

function die(message) {
  process.stderr.write(`glue_check.mjs: ${message}\n`);
  process.exit(2);
}

const target = process.argv[2];
if (!target || process.argv.length > 3) die(USAGE);
const file = resolve(target);
if (!existsSync(file)) die(`no such adapter file: ${target}`);

const here = dirname(fileURLToPath(import.meta.url));
process.env.MCS_BRIDGE_JS ??= resolve(here, "..", "..", "mcs_conformance", "bridge", "server.mjs");

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr); // console.log & co. of the libraries

const { formatLine, parseLine } = await import(pathToFileURL(process.env.MCS_BRIDGE_JS).href);
const adapter = await import(pathToFileURL(file).href);
if (typeof adapter.glueView !== "function" || adapter.GLUE_LISTED === null || typeof adapter.GLUE_LISTED !== "object") {
  die(`${target} exports no glueView function and GLUE_LISTED object`);
}

const limit = Number(process.env.MCS_GLUE_TIMEOUT ?? 60) * 1000;

/** The adapter's answer for one case line. */
async function answer(line) {
  let timer;
  try {
    const caseObj = parseLine(line);
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`glueView did not settle within ${limit / 1000} s`)), limit);
    });
    const out = await Promise.race([adapter.glueView(caseObj), late]);
    return out === undefined ? null : out;
  } catch (error) {
    return { error: error instanceof Error ? `${error.constructor?.name || "Error"}: ${error.message}` : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** A line of JSON; a value that cannot be written is an error line. */
function line(value) {
  try {
    return formatLine(value);
  } catch (error) {
    return formatLine({ error: `the view cannot be written as JSON: ${error.message}` });
  }
}

write(line({ GLUE_LISTED: adapter.GLUE_LISTED }) + "\n");
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const text of lines) {
  if (text.trim() === "") continue;
  write(line(await answer(text)) + "\n");
}
write("", () => process.exit(0)); // an SDK's pending timer or stream keeps no process alive
