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
