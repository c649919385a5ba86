/** A log destination that keeps every line a test's environment writes, parsed. */
export interface LogLines {
  /** The destination handed to openTestEnv's `log`. */
  readonly destination: { write(line: string): void };
  /** Every line so far, as written (to look for text that must not be there). */
  readonly raw: string[];
  /** Every line so far, parsed. */
  // deno-lint-ignore no-explicit-any
  all(): Record<string, any>[];
}

export function logLines(): LogLines {
  const raw: string[] = [];
  return {
    destination: { write: (line) => void raw.push(line) },
    raw,
    all: () => raw.map((line) => JSON.parse(line)),
  };
}
