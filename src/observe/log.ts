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
  // One string grown by concatenation: encoding it costs a line a quarter of what joining an
  // array of lines first did (bench/observability.ts).
  let held = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (held.length === 0) return;
    const bytes = encoder.encode(held);
    held = "";
    for (let off = 0; off < bytes.length;) off += file.writeSync(bytes.subarray(off));
  };
  return {
    write(line) {
      held += line;
      if (held.length >= LOG_BUFFER_CHARS) flush();
      else timer ??= setTimeout(flush, LOG_FLUSH_MS);
    },
    flush,
  };
}

/** A logger that writes nothing (tests that do not read the log, benchmarks' baseline). */
export function silentLogger(): Logger {
  return createLogger("silent", { write: () => {} });
}
