/**
 * Going-live readiness evidence (Business API appendix 3): a business webhook its own receiver
 * answered 2xx is classified (rules/sandbox_readiness.ts) and kept in `sandbox_receiver_steps`;
 * a delivery the built-in inbox took is not (the point is the integrator's own receiver), nor a
 * failed attempt. An age-restricted booking is kept too: it makes the ID refusal required.
 * Idempotent by event id, so a change heard twice writes nothing new.
 */
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import {
  outboundEventActor,
  type OutboundEventSummary,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import type { Deps } from "../../environment.ts";
import { recordStep } from "../queries/sandbox_readiness.ts";
import { readinessStepOf } from "../rules/sandbox_readiness.ts";

/** A webhook delivered to the business's own endpoint, at `at`. */
interface Delivered {
  readonly at: number;
}

export class SandboxReadiness {
  readonly #webhooks: UnitReactor<Delivered>;
  readonly #trips: UnitReactor<Trip>;

  constructor(deps: Pick<Deps, "runtime" | "db">, options: ReactorOptions) {
    const { runtime, db } = deps;
    this.#webhooks = new UnitReactor<Delivered>(options, {
      worker: "sandbox_readiness",
      actorType: outboundEventActor.type,
      unitsOf: deliveredToReceiver,
      work: async (unit, change) => {
        const got = await runtime.read(outboundEventActor, change.tenant, change.id, {
          kind: "get",
        });
        if (!got.ok) throw new Error(`webhook ${change.id}: ${got.code}: ${got.message}`);
        const shown = got.reply ? readinessStepOf(got.reply.raw_body) : null;
        if (shown === null) return;
        await recordStep(db, {
          tenant: change.tenant,
          event_id: change.id,
          ...shown,
          delivered_at: unit.at,
        });
      },
      describe: (_unit, change) => `readiness of webhook ${change.id}`,
    });
    this.#trips = new UnitReactor<Trip>(options, {
      worker: "sandbox_age_restricted",
      actorType: tripActor.type,
      unitsOf: ageRestrictedBooking,
      work: async (trip, change) =>
        await recordStep(db, {
          tenant: change.tenant,
          event_id: `${trip.reference}:age_restricted_booking`,
          step: "age_restricted_booking",
          trip_reference: trip.reference,
          delivered_at: trip.created_at,
        }),
      describe: (trip) => `age-restricted booking ${trip.reference}`,
    });
  }

  async close(): Promise<void> {
    await this.#webhooks.close();
    await this.#trips.close();
  }
}

/** spec: business appendix 3: judged from webhooks the business's own endpoint answered 2xx. */
function deliveredToReceiver(change: ActorChange): readonly Delivered[] {
  const s = change.snapshot as OutboundEventSummary | undefined;
  if (s?.stream !== "business_webhook" || s.status !== "delivered") return [];
  if (!change.events.some((e) => (e.event as { kind?: unknown }).kind === "event_delivered")) {
    return [];
  }
  const outcome = s.last_attempt?.outcome;
  // The built-in inbox is no integrator's receiver: its deliveries prove nothing they handle.
  if (outcome?.result !== "delivered" || outcome.receiver !== undefined) return [];
  return [{ at: s.last_attempt!.at }];
}

function ageRestrictedBooking(change: ActorChange): readonly Trip[] {
  const trip = change.snapshot as Trip | null | undefined;
  if (!trip?.age_verification_required) return [];
  const created = change.events.some((e) =>
    (e.event as { kind?: unknown }).kind === "trip_created"
  );
  return created ? [trip] : [];
}
