/**
 * The service's log: one JSON object a line (pino), at the level the `LOG_LEVEL` setting names.
 * Lines carry ids, codes, counts and durations only: never a key, a token, a secret or a body.
 */
import pino from "pino";

export type Logger = pino.Logger;

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where lines go: anything with `write(line)` (stdout's buffered stream, a test's array). */
export interface LogDestination {
  write(line: string): unknown;
}

/** A logger writing to `destination`; `base` fields go on every line (the environment's name). */
export function createLogger(
  level: LogLevel,
  destination: LogDestination,
  base: Record<string, string> = {},
): Logger {
  // pino's own line shape: `level` as its number (30 info, 40 warn, 50 error), `time` in epoch
  // milliseconds, `err` as {type, message, stack}. Naming the level or formatting the time
  // costs a request more than the rest of its line (bench/observability.ts).
  return pino({ level, base }, destination);
}

/** What infoLine writes: a flat record of plain values. */
export type LineFields = Readonly<Record<string, string | number | boolean | null>>;

/**
 * `log.info(fields, msg)` for a flat record, in pino's own line shape (level, time, the logger's
 * bindings, the fields, msg) to the logger's own destination: the one line every request writes,
 * without pino's general path (a value's serializers and escaping, some 5 µs a line against 1.5,
 * bench/request_path.ts). JSON.stringify escapes the values.
 */
export function infoLine(log: Logger, fields: LineFields, msg: string): void {
  if (!log.isLevelEnabled("info")) return;
  const own = log as unknown as Record<symbol, unknown>;
  const destination = own[pino.symbols.streamSym] as LogDestination;
  const bindings = own[pino.symbols.chindingsSym] as string;
  const json = JSON.stringify(fields);
  const body = json.length > 2 ? `,${json.slice(1, -1)}` : "";
  destination.write(
    `{"level":30,"time":${Date.now()}${bindings}${body},"msg":${JSON.stringify(msg)}}\n`,
  );
}

/** What a request's line says (src/http/request_log.ts), in this order. */
export interface RequestLineFields {
  /** Made by requestIdOf: `[A-Za-z0-9._:-]` or a UUID, nothing JSON would escape. */
  readonly request_id: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly tenant_id: string | null;
  readonly credential: string | null;
}

/**
 * infoLine for the request line, written field by field: JSON.stringify, of the record or even
 * of one string, was most of infoLine's cost (some 3.7 µs a line against 1.4 here, on a loaded
 * machine). Methods, route patterns and credential kinds are few (bounded by the routes), so each
 * is quoted once and kept; the request id needs no escaping (RequestLineFields); a tenant id is
 * quoted at each line.
 */
export function requestLine(log: Logger, r: RequestLineFields): void {
  if (!log.isLevelEnabled("info")) return;
  const own = log as unknown as Record<symbol, unknown>;
  const destination = own[pino.symbols.streamSym] as LogDestination;
  const bindings = own[pino.symbols.chindingsSym] as string;
  const tenant = r.tenant_id === null ? "null" : JSON.stringify(r.tenant_id);
  const credential = r.credential === null ? "null" : quoted(r.credential);
  destination.write(
    `{"level":30,"time":${Date.now()}${bindings},"request_id":"${r.request_id}",` +
      `"method":${quoted(r.method)},"route":${quoted(r.route)},"status":${r.status},` +
      `"duration_ms":${r.duration_ms},"tenant_id":${tenant},"credential":${credential},` +
      `"msg":"request"}\n`,
  );
}

/** Quoted strings of the few values a request line repeats (requestLine). */
const QUOTED = new Map<string, string>();
/** More would mean a value that is not one of the few: quoted each time instead of kept. */
const QUOTED_MAX = 4_096;

function quoted(s: string): string {
  let q = QUOTED.get(s);
  if (q === undefined) {
    q = JSON.stringify(s);
    if (QUOTED.size < QUOTED_MAX) QUOTED.set(s, q);
  }
  return q;
}

/** Characters of lines held before they are written: dozens of lines a system call. */
const LOG_BUFFER_CHARS = 16_384;
/** How long a line may wait for others before it is written anyway. */
const LOG_FLUSH_MS = 50;

/**
 * Standard output (or another open file), buffered: a write is not a system call per line.
 * Written here rather than with pino.destination (sonic-boom), which under Deno's node:fs cost a
 * request some 8 µs a line, more than the rest of its logging (bench/observability.ts).
 * `flush()` before the process exits writes what is still held.
 */
export function stdoutDestination(
  file: { writeSync(p: Uint8Array): number } = Deno.stdout,
): LogDestination & { flush(): void } {
  const encoder = new TextEncoder();
  // Encoded into one buffer kept for the purpose: no new one a write. UTF-8 takes at most three
  // bytes for each UTF-16 unit.
  const bytes = new Uint8Array(LOG_BUFFER_CHARS * 3 + 4_096);
  // One string grown by concatenation: encoding it costs a line a quarter of what joining an
  // array of lines first did (bench/observability.ts).
  let held = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const write = (text: string) => {
    const encoded = text.length * 3 <= bytes.length
      ? bytes.subarray(0, encoder.encodeInto(text, bytes).written)
      : encoder.encode(text);
    for (let off = 0; off < encoded.length;) off += file.writeSync(encoded.subarray(off));
  };
  const flush = () => {
    if (held.length === 0) return;
    const text = held;
    held = "";
    write(text);
  };
  // One timer at a time, left running when the buffer fills first rather than cleared and armed
  // again at every full buffer.
  const due = () => {
    timer = undefined;
    flush();
  };
  return {
    write(line) {
      held += line;
      if (held.length >= LOG_BUFFER_CHARS) flush();
      else timer ??= setTimeout(due, LOG_FLUSH_MS);
    },
    flush() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      flush();
    },
  };
}

/** A logger that writes nothing (tests that do not read the log, benchmarks' baseline). */
export function silentLogger(): Logger {
  return createLogger("silent", { write: () => {} });
}
