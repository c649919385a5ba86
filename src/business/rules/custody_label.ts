/**
 * The custody label (Business API 2.2 `scan_label_url`, 4.1 GET /business/trips/{id}/label): an
 * A6 page stuck on the bag, with the custody token as a Code 128 barcode the driver scans at
 * collection, the token in letters (a scanner that fails is typed), the reference and where it
 * goes. The barcode is drawn by bwip-js. Pure: the same facts give the same bytes.
 */
import bwipjs from "bwip-js";
import { newDocument, saved } from "../../domain/documents/draw.ts";
import { clip, dateTime } from "../../domain/documents/text.ts";
import { winAnsiText } from "../../domain/documents/text.ts";

/** A6, 105 x 148 mm, in points. */
export const A6_SIZE = [297.64, 419.53] as const;
const MARGIN = 18;
const BARCODE_HEIGHT = 110;
/** bwip-js scale: pixels per module, sharp enough for a phone camera once printed. */
const BARCODE_SCALE = 4;

export interface CustodyLabelFacts {
  readonly reference: string;
  readonly scan_code: string;
  readonly recipient: string | null;
  readonly destination: string;
  readonly store_name: string | null;
  /** When the trip was booked: the document's date, so its bytes repeat. */
  readonly booked_at: number;
}

export async function custodyLabelPdf(f: CustodyLabelFacts): Promise<Uint8Array<ArrayBuffer>> {
  const [doc, fonts] = await newDocument({
    title: `Custody label ${f.reference}`,
    subject: f.scan_code,
    author: "Business API",
    keywords: [f.reference, f.scan_code],
    at: f.booked_at,
  });
  const page = doc.addPage([...A6_SIZE]);
  const [w, h] = A6_SIZE;
  const width = w - 2 * MARGIN;
  const png = await bwipjs.toBuffer({
    bcid: "code128",
    text: f.scan_code,
    scale: BARCODE_SCALE,
    height: 20,
    includetext: false,
  });
  const image = await doc.embedPng(png);
  const imageWidth = Math.min(width, (image.width / image.height) * BARCODE_HEIGHT);
  let y = h - MARGIN - 14;
  const line = (text: string, size: number, bold = false) => {
    const font = bold ? fonts.bold : fonts.regular;
    page.drawText(clip(winAnsiText(text), font, size, width), { x: MARGIN, y, size, font });
    y -= size + 6;
  };
  line("CUSTODY LABEL", 14, true);
  line(f.reference, 11);
  y -= BARCODE_HEIGHT + 4;
  page.drawImage(image, {
    x: MARGIN + (width - imageWidth) / 2,
    y,
    width: imageWidth,
    height: BARCODE_HEIGHT,
  });
  y -= 30;
  line(f.scan_code, 24, true);
  y -= 6;
  if (f.store_name) line(`From ${f.store_name}`, 10);
  line(`To ${f.recipient ?? "-"}`, 10, true);
  line(f.destination, 9);
  line(`Booked ${dateTime(f.booked_at)}`, 8);
  return await saved(doc);
}
