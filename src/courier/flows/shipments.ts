/**
 * What runs, customs and the laboratory do to shipments, in one place: read one of the tenant's
 * shipments (another tenant's, or none, is not found), or one of a client's own, and record a scan
 * on it exactly once per key. A shipment already closed keeps its final state; the caller's own record still stands.
 */
import { foundOrNull, refuse, Refused } from "../../runtime/actor.ts";
import {
  asShipment,
  type ScanInput,
  type Shipment,
  shipmentActor,
} from "../../../actors/courier/shipment/mod.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { bookScanCharge } from "./later_charges.ts";
import { askRecord } from "./run_steps.ts";

/** The tenant's shipment; Refused `not_found` otherwise. */
export async function shipmentIn(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
): Promise<Shipment> {
  // A refused read (a full mailbox) is thrown (503), never answered 404 for one that exists.
  const got = foundOrNull(await runtime.read(shipmentActor, tenant, waybill, { kind: "get" }));
  if (got === null) refuse("not_found", `shipment not found: ${waybill}`);
  return asShipment(got);
}

/**
 * One of the client's own shipments (courier 4.6: a client sees only its own); another client's
 * waybill, like none, is Refused `not_found`, so nobody learns that it exists.
 */
export async function clientShipmentIn(
  runtime: ActorRuntime,
  o: { tenant: string; clientId: string; waybill: string },
): Promise<Shipment> {
  const s = await shipmentIn(runtime, o.tenant, o.waybill);
  if (s.client_id !== o.clientId) {
    refuse("not_found", `shipment not found: ${o.waybill}`);
  }
  return s;
}

/**
 * Records `scan` once per `key`, with the later charge it causes (a redelivery, a return);
 * answers the shipment, or null when it was already closed. `requestId`: the request it is
 * recorded for (AskOptions.requestId), if any; `settles`: the crossing a customs outcome settles.
 */
export async function recordOnce(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  key: string,
  scan: ScanInput,
  requestId?: string,
  settles?: string,
): Promise<Shipment | null> {
  // A run's custody move names its step (its key), which ends the step's reservation; a customs
  // outcome names the crossing it settles.
  const command = { kind: "record", scan, step: key, ...(settles ? { settles } : {}) } as const;
  const r = await askRecord(runtime, tenant, waybill, command, {
    idempotencyKey: key,
    permanent: true,
    requestId,
  });
  if (!r.ok) {
    if (r.code === "shipment_closed") return null;
    throw new Refused(r);
  }
  const s = asShipment(r.reply);
  await bookScanCharge(runtime, s, scan.event, scan.by);
  return s;
}
