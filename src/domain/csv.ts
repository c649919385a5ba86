/**
 * The one CSV writer of the files the service hands out (the billing export, the booking
 * template): RFC 4180 quoting, and no cell a spreadsheet would run as a formula.
 */
import { stringify } from "csv-stringify/sync";

/** What a spreadsheet reads as the start of a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as the service writes one (an amount such as -12.50): no formula, left as it is. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * A cell a spreadsheet would evaluate gets OWASP's leading single quote, so it is shown as text:
 * a client's reference or a note's reason reaches the courier's accountant as typed, not run.
 */
export function spreadsheetSafe(cell: string): string {
  // Spreadsheets skip leading blanks and read full-width ＝＋－＠ as their ASCII forms: the cell
  // is judged as they will read it (NFKC folds the full-width signs), and kept as typed.
  const read = cell.normalize("NFKC").replace(/^[ \u00a0]+/, "");
  return FORMULA_START.test(read) && !PLAIN_NUMBER.test(read) ? `'${cell}` : cell;
}

/** Lines of CSV text, each cell made spreadsheet-safe. */
export function csvLines(rows: readonly (readonly string[])[]): string {
  return stringify(rows.map((row) => row.map(spreadsheetSafe)));
}

/**
 * A CSV file as a stream: the header, then the rows as `rows` gives them, `chunk` at a time, so
 * memory holds one chunk however long the file. Reads the first rows before answering: a query
 * that fails does so before a 200 is sent, not as a file cut short after its header.
 */
export async function csvStream<R>(
  header: readonly string[],
  rows: AsyncIterable<R>,
  cellsOf: (row: R) => readonly string[],
  chunk: number,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  const source = rows[Symbol.asyncIterator]();
  let ahead: IteratorResult<R> | null = await source.next();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLines([header])));
        return;
      }
      const lines: (readonly string[])[] = [];
      let done = false;
      while (lines.length < chunk) {
        const next = ahead ?? await source.next();
        ahead = null;
        if (next.done) {
          done = true;
          break;
        }
        lines.push(cellsOf(next.value));
      }
      if (lines.length > 0) controller.enqueue(encoder.encode(csvLines(lines)));
      if (done) controller.close();
    },
    async cancel() {
      await source.return?.();
    },
  });
}
