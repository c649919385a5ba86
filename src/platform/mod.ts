/**
 * The platform: what every document stands on (CONTRACT operator API; Business API 4.3, 5): the
 * businesses and their keys, people, drivers and wallets, sign-in, the settings, and the one
 * signed delivery engine for outbound events with the deferred work of every bus worker.
 */
import { bindBusinessSeals } from "./flows/old_seals.ts";
import { PLATFORM_ACTORS } from "../../actors/platform/mod.ts";
import { operatorRoutes } from "../../routes/platform/operator.ts";
import { metricsRoutes } from "../../routes/platform/metrics.ts";
import { accountRoutes } from "../../routes/business/account.ts";
import type { Feature, FeatureDeps } from "../feature.ts";
import { DeliveryHooks } from "./delivery_hooks.ts";
import { DeferredWorks } from "./reactors/deferred.ts";
import { OutboundDelivery } from "./reactors/deliver.ts";
import { sweepRecipientRates } from "./reactors/shared_recipient_rate.ts";
import { businessWebhookTargets } from "./reactors/business_targets.ts";
import { webhookPorts } from "./flows/webhook_urls.ts";
import { OwnerNotices } from "./reactors/owner_notices.ts";
import { startEndpointSetOutbox } from "./reactors/endpoint_set.ts";
import { egressPolicyOf, egressSend } from "../outbound/egress.ts";
import { pinnedPost } from "../outbound/pinned_post.ts";
import { startPlatformReadTables } from "./queries/read_tables.ts";
import { startCredentialCache } from "./auth/credential_cache.ts";
import { businessActor } from "../../actors/platform/business/mod.ts";
import { driverActor } from "../../actors/platform/driver.ts";

/** What the platform offers the features started after it. */
export interface PlatformServices {
  /** Where the bus workers of every feature keep work that still fails after its retries. */
  readonly deferral: DeferredWorks;
  /** Where features say where their recipients' events go and what a failure raises. */
  readonly delivery: DeliveryHooks;
  /** The delivery engine's first attempt of an event not made yet (an outbox's handler). */
  readonly attemptFirst: OutboundDelivery["attemptFirst"];
}

export const PLATFORM = "platform";

/** The platform's services, for a feature started after it. */
export function platformServices(deps: Pick<FeatureDeps, "services">): PlatformServices {
  const s = deps.services(PLATFORM);
  if (!(s instanceof Object) || !("deferral" in s) || !("delivery" in s)) {
    throw new Error("the platform feature must start before the features that use it");
  }
  return s as PlatformServices;
}

export const platformFeature: Feature = {
  name: PLATFORM,
  actors: PLATFORM_ACTORS,
  routers: [operatorRoutes, metricsRoutes, accountRoutes],
  start(deps) {
    const { runtime, bus } = deps;
    // Work the workers still fail after their retries is kept and tried again later.
    const deferral = new DeferredWorks({ runtime, bus });
    const delivery = new DeliveryHooks();
    // spec: business 6: a business's own webhook URL, asked before the features' recipients.
    delivery.add({ targets: businessWebhookTargets(runtime, deps.clock) });
    // spec: business 1.3: what may leave is the environment's one decision (egress.ts).
    const egress = egressPolicyOf(deps.name);
    const outbound = outboundOf(deps, deferral, delivery, egress);
    // Business API 5.6: the owner is e-mailed of a changed key, webhook secret or webhook address.
    const ownerNotices = new OwnerNotices({ runtime, bus, deferral, egress });
    const services: PlatformServices = {
      deferral,
      delivery,
      attemptFirst: (tenant, event, target) => outbound.attemptFirst(tenant, event, target),
    };
    // Issue 36 item 5: credentials answered from memory until their actors change.
    const credentials = startCredentialCache({ runtime, bus, busPrefix: deps.busPrefix });
    credentials.follow(businessActor.type);
    credentials.follow(driverActor.type);
    return {
      // The operator's lists' typed read tables (migration 0017).
      projections: {
        platform_read_tables: startPlatformReadTables({
          bus,
          db: deps.db,
          env: deps.busPrefix,
          handledBy: runtime.placement,
        }),
      },
      // Closed newest first: the deferral, which the others defer into, last.
      reactors: {
        deferral,
        outbound,
        owner_notices: ownerNotices,
        credentials,
        // spec: courier 3.1, business 6: the events that waited for an endpoint set, made due.
        endpoint_set: startEndpointSetOutbox(deps),
      },
      // Attempts are I/O, so they run beside the actors, as soon as their timers say they are
      // due. A pump may still be waiting on a slow endpoint when the next starts: the engine's
      // caps on attempts under way (INFLIGHT_ATTEMPTS_MAX, TENANT_INFLIGHT_ATTEMPTS_MAX) hold
      // across pumps.
      pumps: { "outbound delivery": () => outbound.pump() },
      // The shared pace's rows of seconds gone count nothing: deleted with the other sweeps.
      sweeps: deps.sharesCounters
        ? { "recipient rate counters": (now) => sweepRecipientRates(deps.db, now) }
        : {},
      // Issue 42 item 9: seals stored before they were bound to their owner, bound once per
      // version; unseal still takes an unbound seal an older instance writes afterwards.
      migrations: {
        "business webhook seals made before seals were bound": {
          version: 1,
          run: () => bindBusinessSeals(runtime, deps.dataKey),
        },
      },
      services,
    };
  },
};

/** The outbound delivery engine of the environment (spec: courier 6, business 6). */
function outboundOf(
  deps: FeatureDeps,
  deferral: DeferredWorks,
  delivery: DeliveryHooks,
  egress: ReturnType<typeof egressPolicyOf>,
): OutboundDelivery {
  const { runtime, bus } = deps;
  return new OutboundDelivery({
    deferral,
    runtime,
    bus,
    dataKey: deps.dataKey,
    clock: deps.clock,
    allowLoopback: deps.allowLoopbackWebhooks,
    allowedPorts: () => webhookPorts(runtime),
    send: egressSend(egress, "webhook", (request) => pinnedPost(request)),
    log: deps.log,
    metrics: deps.metrics,
    ...delivery.callbacks(),
    // Issue 43 item 4: a recipient's backlog paced across the instances sharing the query side.
    ...(deps.sharesCounters ? { paceDb: deps.db } : {}),
  });
}
