/**
 * Blocks the courier's paper is built of (courier 4.5, 4.6): two party columns, and the shared
 * label and value rows, tables and footers (`domain/documents/blocks.ts`). Pure.
 */
import type { DocumentParty } from "./facts.ts";
import type { Cell, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, clippedLines } from "../../../domain/documents/text.ts";

export { detailRows, footers, table } from "../../../domain/documents/blocks.ts";

export interface PartyColumn {
  readonly label: string;
  readonly party: DocumentParty;
  /** A line after the phone (the country, on the client's paper); omitted when null. */
  readonly extra?: string | null;
}

/** Two parties side by side: label, name, address (at most `addressLines`), phone. */
export function partyColumns(
  w: PageWriter,
  left: PartyColumn,
  right: PartyColumn,
  o: { size?: number; addressLines: number },
): void {
  const size = o.size ?? 10;
  const columnWidth = w.width / 2 - 10;
  const { regular, bold } = w.fonts;
  const column = (c: PartyColumn, x: number): Cell[] => [
    { text: c.label, font: bold, x },
    { text: clip(c.party.name ?? "-", bold, size, columnWidth), font: bold, x },
    ...clippedLines(c.party.address ?? "-", {
      font: regular,
      size,
      width: columnWidth,
      max: o.addressLines,
    }).map((text) => ({ text, font: regular, x })),
    { text: c.party.phone ? `Tel ${c.party.phone}` : "", font: regular, x },
    ...(c.extra ? [{ text: clip(c.extra, regular, size, columnWidth), font: regular, x }] : []),
  ];
  const a = column(left, w.left);
  const b = column(right, w.left + w.width / 2 + 10);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    w.row([a[i], b[i]].filter((cell) => cell !== undefined), { size });
  }
}
