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
  return pino({
    level,
    base,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Errors as {type, message, stack}; the level as its name, which a reader greps for.
    serializers: { err: pino.stdSerializers.err },
    formatters: { level: (label) => ({ level: label }) },
  }, destination);
}

/**
 * Standard output, buffered (a write is not a system call per line); `flush()` before the
 * process exits writes what is still held.
 */
export function stdoutDestination(): LogDestination & { flush(): void } {
  const out = pino.destination({ dest: 1, minLength: 4096, sync: false });
  return {
    write: (line) => out.write(line),
    flush: () => out.flushSync(),
  };
}

/** A logger that writes nothing (tests that do not read the log, benchmarks' baseline). */
export function silentLogger(): Logger {
  return createLogger("silent", { write: () => {} });
}
