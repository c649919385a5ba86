/**
 * The bench's summary block (issue 36 "Measured, not asserted"): the parts record their goal
 * figures here as they run, and `deno task bench` ends with one `name: value` line per figure, so
 * a script can read them. A part that did not run (BENCH_ONLY) records nothing.
 */

const figures = new Map<string, number>();

/** Records a goal figure; a name recorded twice keeps the later value. */
export function recordFigure(name: string, value: number): void {
  if (!/^[a-z0-9_]+$/.test(name)) throw new RangeError(`figure name must be snake_case: ${name}`);
  figures.set(name, value);
}

/** The figures recorded so far, by name, in the order first recorded. */
export function recordedFigures(): ReadonlyMap<string, number> {
  return figures;
}

/** The summary block: a header line, then `name: value` lines (NaN where a figure is unknown). */
export function summaryBlock(): string {
  const lines = [...figures].map(([name, value]) => `${name}: ${format(value)}`);
  return ["summary:", ...lines].join("\n");
}

function format(value: number): string {
  if (!Number.isFinite(value)) return "NaN";
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}
