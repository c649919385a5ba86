/**
 * The projections' lag, bounded (issue 36 item 1): while one of this instance's projections holds
 * more changes received and not yet written than its bound (the query side down or slower than
 * the commits for a while), the HTTP app refuses requests that would write (503
 * `projections_behind`, Retry-After), so the backlog in memory stops growing and drains, instead
 * of growing until the process runs out of memory and loses the lot to its recovery markers.
 * Reads go on. The lag itself is reported by the metrics (projection_lag_changes, _seconds).
 */
import type { Logger } from "../observe/log.ts";

/** What the bound reads of a projection (feature.ts Projection.backlog). */
interface Lagging {
  backlog?(): { changes: number; oldestMs: number };
}

/** The projection past its bound, with its backlog. */
export interface ProjectionBehind {
  readonly projection: string;
  readonly changes: number;
  readonly oldestMs: number;
}

/**
 * The first of `projections` whose backlog is past `max` changes, or null; a crossing either way
 * is logged once (a notable event), not once per refused request.
 */
export function projectionBound(
  projections: () => Readonly<Record<string, Lagging>>,
  max: number,
  log: Logger,
): () => ProjectionBehind | null {
  let behind: string | null = null;
  return () => {
    let found: ProjectionBehind | null = null;
    for (const [projection, p] of Object.entries(projections())) {
      const lag = p.backlog?.();
      if (lag && lag.changes > max) {
        found = { projection, changes: lag.changes, oldestMs: Math.round(lag.oldestMs) };
        break;
      }
    }
    if (found && behind === null) {
      log.warn({ event: "projection_behind", ...found, bound: max }, "projection behind");
    } else if (!found && behind !== null) {
      log.info(
        { event: "projection_caught_up", projection: behind, bound: max },
        "projection caught up",
      );
    }
    behind = found?.projection ?? null;
    return found;
  };
}
