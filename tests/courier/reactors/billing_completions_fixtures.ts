/** Fixtures shared by billing_completions_test.ts and billing_completion_adjustments_test.ts. */
import assert from "node:assert/strict";
import {
  outboundEventActor,
  type OutboundEventEvent,
} from "../../../actors/platform/outbound_event/mod.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import type { ScanEvent } from "../../../src/courier/rules/lifecycle.ts";
import { BillingEvents } from "../../../src/courier/reactors/billing_events.ts";
import { startLedgerProjector } from "../../../src/courier/reactors/ledger_projection.ts";
import { type TestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { heldBus } from "../../helpers/faults.ts";

/** No real waiting between tries: the tests drive the bus, never a clock. */
export const NO_WAIT = { delaysMs: [0, 0, 0] };

/** Billing events of the test's own, on `runtime`, with every failure they report kept. */
export function reporting(t: TestEnv, runtime = t.env.runtime) {
  const errors: unknown[] = [];
  const billing = new BillingEvents({
    runtime,
    bus: t.env.bus,
    db: t.env.db,
    retry: NO_WAIT,
    onError: (e) => errors.push(e),
  });
  return { billing, errors };
}

export interface Booked {
  readonly courier: Courier;
  readonly client: Client;
  readonly waybill: string;
}

/**
 * One booked shipment; the environment's own billing events stopped, for a test's own. `card`:
 * rate-card fields over newCourier's.
 */
export async function ready(t: TestEnv, card: Record<string, unknown> = {}): Promise<Booked> {
  const courier = await newCourier(t, card);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  const waybill = await bookWaybill(t, client);
  await t.env.bus.flush();
  await t.env.reactors["billing_events"]!.close();
  return { courier, client, waybill };
}

/** Scans recorded on the shipment actor: committed and published as a scan request would. */
export async function record(t: TestEnv, b: Booked, events: readonly ScanEvent[]): Promise<void> {
  for (const event of events) {
    const r = await t.env.runtime.ask(shipmentActor, b.courier.business.id, b.waybill, {
      kind: "record",
      scan: { event, by: "ops@example.com", received_by: "Neo Kgosi" },
    });
    assert.ok(r.ok, JSON.stringify(r));
  }
}

export function completionId(b: Booked, waybill = b.waybill): string {
  return eventIdOf("billing.completion", b.courier.business.id, waybill, "shipment.delivered");
}

/** How often the event's actor was created: once, or the event was made twice. */
export async function creations(t: TestEnv, eventId: string): Promise<number> {
  let n = 0;
  for await (const { event } of t.env.runtime.events(outboundEventActor, eventId)) {
    if ((event as OutboundEventEvent).kind === "created") n++;
  }
  return n;
}

/** The body of the shipment's completion event, or null while it is not made. */
export async function completionBody(
  t: TestEnv,
  b: Booked,
): Promise<{ shipment: { adjustments: { reference: string; kind: string }[] } } | null> {
  const got = await t.env.runtime.ask(outboundEventActor, b.courier.business.id, completionId(b), {
    kind: "get",
  });
  if (!got.ok && got.code === "not_found") return null;
  assert.ok(got.ok && got.reply, JSON.stringify(got));
  return JSON.parse(got.reply.raw_body);
}

/** The ledger's projection into Postgres, behind the accounts while held (see heldBus). */
export interface LaggingLedger {
  hold(): void;
  /** Writes what was held back, in order; with `changes`, only that many of the oldest. */
  release(changes?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Puts the environment's ledger projection behind a held bus. Its sync sentinels are then
 * never reached: the test must not `settle()` after this.
 */
export async function laggingLedger(t: TestEnv): Promise<LaggingLedger> {
  await t.projections["ledger"]!.stop();
  const held = heldBus(t.env.bus);
  const projector = startLedgerProjector({
    bus: held.bus,
    db: t.env.db,
    env: t.env.runtime.busPrefix,
  });
  return {
    hold: () => held.hold(),
    async release(changes) {
      await held.release(changes);
      await projector.idle();
    },
    stop: () => projector.stop(),
  };
}

export function isCompletionCreate(command: unknown): boolean {
  const c = command as { kind?: string; event?: { event_type?: string } };
  return c.kind === "create" && c.event?.event_type === "shipment.delivered";
}
