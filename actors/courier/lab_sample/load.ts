/** Samples stored by earlier versions, loaded in today's shape. */
import { readingDigest } from "./digests.ts";
import type { LabSample, LabSampleState } from "./types.ts";

/**
 * Version 1 compared a reading sent again with the latest readings only, and kept no digests: its
 * samples start theirs from the readings they hold. An older reading of theirs, beyond those, is
 * not known again (its identity was never kept).
 */
export function load(stored: unknown, version: number): LabSampleState {
  if (stored === null) return null;
  const s = stored as LabSample;
  if (version >= 2 && s.reading_digests !== undefined) return s;
  return { ...s, reading_digests: s.readings.map(readingDigest) };
}
