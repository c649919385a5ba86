/**
 * Passes over data stored by earlier versions (FeatureParts.migrations), run once per version:
 * a pass done is marked in the store under its name and version (ActorStore.markPassDone), so a
 * later start skips it instead of reading every record again, and a new version of a pass runs
 * once more. The marker is a saving, not a guarantee: during a rolling deploy an older instance
 * may still write old data after it is set, so the read paths that take old data as today's
 * rules would (an actor's `load`, unseal of an unbound seal) stay, and no answer depends on the
 * pass having run over every record.
 */
import type { ActorRuntime } from "./runtime.ts";

/** One pass: idempotent (a second run changes nothing); answers how many actors it changed. */
export interface OldDataPass {
  /** Raised when the pass changes, so it runs again on stores that ran an earlier one. */
  readonly version: number;
  run(): Promise<number>;
}

/** What a run of the passes tells (server.ts logs it). */
export interface OldDataReport {
  changed(name: string, changed: number): void;
  failed(name: string, error: unknown): void;
}

/** The name a pass's version is marked done under. */
export function oldDataMarker(name: string, version: number): string {
  return `old_data:${name}:v${version}`;
}

/**
 * Runs, in order, each pass not yet marked done at its version, and marks it done. One that
 * fails is reported and left unmarked for the next start: the service still serves.
 */
export async function runOldDataPasses(
  runtime: ActorRuntime,
  passes: Iterable<readonly [string, OldDataPass]>,
  report: OldDataReport,
): Promise<void> {
  for (const [name, pass] of passes) {
    const marker = oldDataMarker(name, pass.version);
    if (await runtime.passDone(marker)) continue;
    let changed: number;
    try {
      changed = await pass.run();
    } catch (error) {
      report.failed(name, error);
      continue;
    }
    await runtime.markPassDone(marker);
    if (changed > 0) report.changed(name, changed);
  }
}
