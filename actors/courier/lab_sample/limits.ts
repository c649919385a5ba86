/** The sample's bounds (STYLE 5), and texts clipped to them. */
/**
 * Readings kept in state (the event log keeps every one). A reading takes up to about 300 bytes
 * with every text at its cap; 100 of them leave room under STATE_BYTES_MAX for the rest.
 */
export const LAB_READINGS_IN_STATE_MAX = 100;
/** Sources, devices, seal ids, item keys and sample types are short identifiers. */
export const LAB_NAME_CHARS_MAX = 40;
/** A tick's note: a line, not a report. */
export const LAB_NOTE_CHARS_MAX = 120;
/** The laboratory's decision note. */
export const LAB_DECISION_NOTE_CHARS_MAX = 500;
/** Who recorded something: a principal's name (`driver:drv_...`, `partner_key:...`). */
export const LAB_BY_CHARS_MAX = 64;
/** Decisions kept in state; `decisions_total` counts them all. */
export const LAB_DECISIONS_IN_STATE_MAX = 5;
/** Distinct tick items of a sample without a checklist (with one: the checklist's items). */
export const LAB_TICK_ITEMS_MAX = 40;
/** A reading or range bound beyond this many degrees (either unit) is not a temperature. */
export const TEMPERATURE_ABS_MAX = 1_000;
/**
 * How far ahead of the service's clock a reading's time may be: a logger's clock drifts, but a
 * reading from the future is a wrong clock or a wrong date, and would count as in time.
 */
export const READING_AHEAD_MS_MAX = 15 * 60_000;
/** The tick item that records the seal. */
export const SEAL_ITEM = "seal";

/** A text trimmed and clipped to `max` characters. */
export function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length <= max ? t : t.slice(0, max);
}
