/**
 * A batch's packing slips (Business API 4.2 GET /business/batches/{id}/packing-slips): every
 * stop's slip in one PDF, in the driving order, as each trip's own packing slip prints it (2.6
 * settings, pieces from its order_payload); with labels, each stop's custody label (the scanning
 * add-on) follows its slip, to be cut off and stuck on the parcel. A cancelled stop has none.
 */
import { PDFDocument } from "pdf-lib";
import { batchActor } from "../../../actors/business/batch.ts";
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse } from "../../runtime/actor.ts";
import { BATCH_SLIP_PAGES_MAX, batchSlipPages, piecesOf } from "../rules/documents/facts.ts";
import { packingSlipPdf } from "../rules/documents/packing_slip.ts";
import { custodyLabelOf } from "./custody_labels.ts";
import { packingSlipSettingsOf } from "./packing_slip_settings.ts";
import { businessName, tripFacts } from "./trip_documents.ts";

type D = Pick<Deps, "runtime">;

/** spec: business 4.2: all stops' slips in one PDF; `withLabels`: each stop's label after it. */
export async function batchPackingSlips(
  deps: D,
  business: string,
  id: string,
  withLabels: boolean,
): Promise<{ readonly reference: string; readonly pdf: Uint8Array<ArrayBuffer> }> {
  const { batch } = orRefuse(await deps.runtime.read(batchActor, business, id, { kind: "get" }));
  const booked = await stopTrips(deps, business, batch.stops);
  // spec: business 4.2, 3.1: a slip is what to pack; a cancelled stop is not carried, so its
  // slip is left out (the batch's answer shows the stop cancelled), never printed to be packed.
  const trips = booked.filter((t) => t.status !== "cancelled");
  if (booked.length > 0 && trips.length === 0) {
    refuse("batch_cancelled", `every stop of the batch was cancelled: nothing to pack: ${id}`);
  }
  if (withLabels && !trips.some((t) => t.scan_code !== null)) {
    refuse(
      "custody_scanning_off",
      `the batch was booked without the custody scanning add-on, so it has no labels: ${id}`,
    );
  }
  const [settings, sender] = await Promise.all([
    packingSlipSettingsOf(deps, business),
    businessName(deps, business),
  ]);
  const facts = trips.map((trip) => tripFacts(trip, sender));
  const labels = withLabels ? trips.filter((t) => t.scan_code !== null).length : 0;
  const pages = batchSlipPages(facts, labels);
  // One request must not build tens of thousands of pages in memory (spec: business 4.2).
  if (pages > BATCH_SLIP_PAGES_MAX) {
    refuse(
      "batch_slip_pages_exceeded",
      `the batch's slips would run to ${pages} pages, above ${BATCH_SLIP_PAGES_MAX}: ` +
        `print each trip's packing slip on its own: ${id}`,
    );
  }
  const out = await PDFDocument.create();
  for (const [i, trip] of trips.entries()) {
    const f = facts[i]!;
    await append(out, await packingSlipPdf({ facts: f, settings, pieces: piecesOf(undefined, f) }));
    if (withLabels && trip.scan_code !== null) {
      await append(out, await custodyLabelOf({ ...trip, scan_code: trip.scan_code }));
    }
  }
  return { reference: batch.id, pdf: await out.save() as Uint8Array<ArrayBuffer> };
}

/** The stops' trips in the driving order; a stop still being booked has no slip yet. */
async function stopTrips(
  deps: D,
  business: string,
  stops: readonly { readonly position: number; readonly trip_reference: string }[],
): Promise<Trip[]> {
  const ordered = [...stops].sort((a, b) => a.position - b.position);
  const read = await Promise.all(
    ordered.map((s) => deps.runtime.read(tripActor, business, s.trip_reference, { kind: "get" })),
  );
  // A refused read (a full mailbox) is thrown (503): the document would lack that stop's slip.
  return read.flatMap((r) => {
    const got = foundOrNull(r);
    return got?.phase === "booked" ? [got.trip] : [];
  });
}

async function append(out: PDFDocument, bytes: Uint8Array): Promise<void> {
  const doc = await PDFDocument.load(bytes);
  for (const page of await out.copyPages(doc, doc.getPageIndices())) out.addPage(page);
}
