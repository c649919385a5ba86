/**
 * Courier 4.6: the rows of a bulk or CSV booking read into booking requests, each with its
 * identity (identityOf), or the refusal naming every field that is wrong with it.
 */
import type { CourierClient } from "../../../actors/courier/courier_client.ts";
import { type BookingRow, identityOf } from "../../../src/courier/flows/booking/mod.ts";
import { hashSecret } from "../../../src/domain/secrets.ts";
import { type FieldError, validationFailed } from "../../../src/http/errors.ts";
import { ShipmentRequest, unknownServiceLevel } from "./booking.ts";
import type { CsvLine } from "./shipment_csv.ts";

/** Each bulk row checked on its own: its request and identity, or its refusal naming every field. */
export function bulkRequests(
  rows: readonly unknown[],
  header: string | null,
  client: CourierClient,
  serviceLevels: readonly string[],
) {
  return rows.map((row, index) => {
    const parsed = ShipmentRequest.safeParse(row);
    // spec: courier 4.6: a row books as POST /client/shipments does, so its service level is
    // checked as that call reads it (trimmed); one it cannot read is the schema's error.
    const named = typeof row === "object" && row !== null && "service_level" in row
      ? ShipmentRequest.shape.service_level.safeParse(row.service_level)
      : null;
    const level = named?.success ? unknownServiceLevel(named.data, serviceLevels) : null;
    const errors: FieldError[] = parsed.success ? [] : parsed.error.issues.map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
    if (level && !errors.some((e) => e.path === "service_level")) {
      errors.push({ path: "service_level", message: level });
    }
    if (!parsed.success || errors.length > 0) return validationFailed(errors);
    const derived = header ? `batch:${header}:${index}` : null;
    return { req: parsed.data, identity: identityOf(parsed.data, derived, client) };
  });
}

/** The CSV lines that make requests, with their identities. */
export async function csvRequests(
  lines: readonly CsvLine[],
  header: string | null,
  client: CourierClient,
) {
  const seen = new Map<string, number>();
  const rows: BookingRow[] = [];
  for (const l of lines) {
    if (!("req" in l)) continue;
    let derived = null;
    if (header) {
      // The n-th line with this content: two identical lines are two shipments.
      const digest = await hashSecret(l.content);
      const n = (seen.get(digest) ?? 0) + 1;
      seen.set(digest, n);
      derived = `csv:${header}:${digest}:${n}`;
    }
    rows.push({ req: l.req, identity: identityOf(l.req, derived, client) });
  }
  return rows;
}
