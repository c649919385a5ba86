/**
 * Client webhooks (courier 2.12, 6.2): a client that set a webhook URL receives
 * `shipment.<stage>` events for its own shipments only, with customer-safe fields only, signed
 * with its own secret (the target is looked up at each attempt, see targets.ts). Created from the
 * shipments' changes on the bus, one event per shipment and stage, ids derived from both.
 *
 * An event whose making fails (the client read, the event's commit) is made again within the
 * delivery (src/bus/retry.ts): a transient failure loses no webhook event, and a crash meanwhile
 * republishes the change at start (courier 6.2: at-least-once delivery); one still failing is
 * deferred (src/platform/reactors/deferred.ts) and made on a durable schedule.
 */
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { type LoggedShipmentEvent, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import { clientWebhookBody, type ClientWebhookData, eventIdOf } from "../rules/billing_events.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { ShipmentSnapshot } from "../queries/operations_row.ts";

export interface ClientWebhooksOptions extends ReactorOptions {
  readonly runtime: ActorRuntime;
}

/** One stage of one shipment, as its client's webhook reports it. */
export interface ShipmentStage extends ClientWebhookData {
  readonly client_id: string;
  /**
   * What makes this report distinct: the stage for a stage reached once, or e.g. the new estimate
   * for `estimate_changed`, which may happen many times.
   */
  readonly occurrence: string;
}

// Shipments side by side, one shipment's stages in order: an event being retried holds up only
// its own shipment's later events.
export class ClientWebhooks extends UnitReactor<ShipmentStage> {
  readonly #runtime: ActorRuntime;

  constructor(options: ClientWebhooksOptions) {
    super(options, {
      worker: "client_webhooks",
      actorType: shipmentActor.type,
      unitsOf: stagesOf,
      work: (stage, change) => emitStage(options.runtime, change.tenant, stage, change.request_id),
      describe: (stage) => `client webhook of ${stage.waybill}`,
    });
    this.#runtime = options.runtime;
  }

  /**
   * Creates the webhook event of one stage when the client has a webhook; answers its event id,
   * or null when the client has none (nothing is sent, nothing is kept).
   */
  async emit(tenant: string, stage: ShipmentStage): Promise<string | null> {
    return await emitStage(this.#runtime, tenant, stage);
  }
}

/** `requestId`: the request whose change reached the stage, named by the event's attempts. */
async function emitStage(
  runtime: ActorRuntime,
  tenant: string,
  stage: ShipmentStage,
  requestId?: string,
): Promise<string | null> {
  const got = await runtime.read(courierClientActor, tenant, stage.client_id, { kind: "get" });
  // A refused read (a busy actor) is no answer that the client has no webhook: tried again.
  if (!got.ok && got.code !== "not_found") {
    throw new Error(`client ${stage.client_id}: ${got.code}: ${got.message}`);
  }
  if (!got.ok || !got.reply || !("settings" in got.reply) || !got.reply.webhook) return null;
  const client = got.reply;
  const event = `shipment.${stage.stage}`;
  const eventId = await eventIdOf("client_webhook", tenant, stage.waybill, stage.occurrence);
  const created = await runtime.ask(outboundEventActor, tenant, eventId, {
    kind: "create",
    event: {
      event_id: eventId,
      stream: "client_webhook",
      event_type: event,
      raw_body: clientWebhookBody({
        eventId,
        event,
        clientCode: client.code,
        timestamp: stage.at,
        data: stage,
      }),
      recipient: { kind: "client", client_id: client.id },
      ...(requestId === undefined ? {} : { request_id: requestId }),
    },
  }, { fresh: true }); // derived from a stage heard now (see billing_events.ts)
  if (!created.ok && created.code !== "exists_with_different_body") {
    throw new Error(`client webhook ${eventId}: ${created.code}: ${created.message}`);
  }
  return eventId;
}

/** The shipment's status and health as one event of a change left them. */
interface StandingAt {
  readonly status: string;
  readonly health: string;
}

/**
 * The client-facing reports a shipment's change makes. A change may carry several commands'
 * events (a batch committed together) while its snapshot is the shipment after the last: each
 * report says the status and condition the events before it left (spec: courier 2.12).
 */
function stagesOf(change: ActorChange): ShipmentStage[] {
  if (change.type !== shipmentActor.type) return [];
  const s = change.snapshot as ShipmentSnapshot | undefined;
  if (!s) return [];
  let standing: StandingAt = s;
  return change.events.flatMap(({ event }) => {
    const e = event as LoggedShipmentEvent;
    // Logs of earlier versions carry the booked shipment and a scan's lifecycle whole.
    if (e.kind === "shipment_booked") standing = "shipment" in e ? e.shipment : e;
    else if (e.kind === "scanned" || e.kind === "checked" || e.kind === "presentation_withdrawn") {
      standing = "lifecycle" in e ? e.lifecycle : e.changed;
    }
    const stage = stageOf(e, s, standing);
    return stage === null ? [] : [stage];
  });
}

/**
 * The client-facing report of a shipment event, if it makes one (courier 6.1, 6.2): a new stage
 * (`shipment.<headline>`), or a moved estimate (`shipment.estimate_changed`), with the status
 * and condition the shipment had then.
 */
function stageOf(
  e: LoggedShipmentEvent,
  s: ShipmentSnapshot,
  standing: StandingAt,
): ShipmentStage | null {
  const common = {
    client_id: s.client_id,
    waybill: s.waybill,
    client_order_reference: s.references.client_order_reference,
    status: standing.status,
    condition: standing.health,
  };
  switch (e.kind) {
    case "shipment_booked":
      return {
        ...common,
        occurrence: "booked",
        stage: "booked",
        at: "shipment" in e ? e.shipment.booked_at : e.booked_at,
      };
    case "stage_reached":
      return { ...common, occurrence: `${e.stage}:${e.occurrence}`, stage: e.stage, at: e.at };
    case "estimate_changed":
      return {
        ...common,
        occurrence: `estimate_changed:${e.to}:${e.at}`,
        stage: "estimate_changed",
        at: e.at,
        estimated_delivery_on: e.to,
      };
    default:
      return null;
  }
}
