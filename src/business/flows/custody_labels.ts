/**
 * The custody label of a business's trip (Business API 2.2 scan_label_url, 4.1 GET
 * /business/trips/{id}/label): only a trip booked with the custody scanning add-on has one.
 */
import type { Deps } from "../../environment.ts";
import { refuse } from "../../runtime/actor.ts";
import { custodyLabelPdf } from "../rules/custody_label.ts";
import { askTrip } from "./trips.ts";
import { refuseCancelled } from "./trip_documents.ts";
import type { Trip } from "../../../actors/business/trip/mod.ts";

export async function custodyLabel(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
): Promise<{ readonly reference: string; readonly pdf: Uint8Array<ArrayBuffer> }> {
  const { trip: t } = await askTrip(deps, business, idOrReference, { kind: "get" });
  refuseCancelled(t);
  if (t.scan_code === null) {
    refuse(
      "custody_scanning_off",
      `the trip was booked without the custody scanning add-on, so it has no label: ${t.reference}`,
    );
  }
  const pdf = await custodyLabelOf({ ...t, scan_code: t.scan_code });
  return { reference: t.reference, pdf };
}

/** The custody label of a trip booked with the scanning add-on (its scan code as the barcode). */
export function custodyLabelOf(
  t: Trip & { readonly scan_code: string },
): Promise<Uint8Array<ArrayBuffer>> {
  const store = t.order_payload?.["store_name"];
  return custodyLabelPdf({
    reference: t.reference,
    scan_code: t.scan_code,
    recipient: t.passenger_name,
    destination: t.dest.address,
    store_name: typeof store === "string" ? store : null,
    booked_at: t.created_at,
  });
}
