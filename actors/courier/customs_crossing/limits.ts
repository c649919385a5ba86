/** The crossing's bounds (STYLE 5), and texts clipped to them. */
// The whole crossing stays far below STATE_BYTES_MAX (60 000).
/** Moves kept per crossing: a crossing sees a handful; past this something is wrong. */
export const CROSSING_MOVES_MAX = 24;
/** Documents supplied over the crossing's life (append-only). */
export const CROSSING_DOCUMENTS_MAX = 40;
/** Documents in one supply. */
export const SUPPLY_DOCUMENTS_MAX = 20;
/** Duties recorded on one crossing. */
export const CROSSING_DUTIES_MAX = 8;
/**
 * Operations' scans under way kept per crossing (delivery.ts): a shipment sees one or two at a
 * time; past this the oldest (a scan that crashed before it was recorded) is dropped.
 */
export const SCANS_UNDER_WAY_MAX = 8;
/** Reasons, evidence and notes: a sentence or a file reference. */
export const CUSTOMS_TEXT_CHARS_MAX = 300;
/** Customs references, document names and references, border posts, principal names. */
export const CUSTOMS_NAME_CHARS_MAX = 120;
/** Serialized state refused past this, whatever the texts hold (multi-byte characters). */
export const CROSSING_BYTES_MAX = 50_000;

/** A text trimmed and clipped to `max` characters; null when empty. */
export function text(v: string | null | undefined, max: number): string | null {
  const t = v?.trim();
  return t ? t.slice(0, max) : null;
}
