/**
 * Opens one environment (live or sandbox) with its own KV file, database schema, bus prefix, keys
 * and scheduler, and builds its HTTP app. main.ts opens two; tests open one in memory.
 */
import type { Hono } from "hono";
import { ACTORS } from "../actors/mod.ts";
import { ROUTERS } from "../routes/mod.ts";
import { completeStalledBookings } from "./courier/flows/booking.ts";
import type { Bus } from "./bus/bus.ts";
import { openDatabase } from "./db/db.ts";
import { type Projector, startProjector } from "./db/projection.ts";
import {
  type LedgerProjector,
  startLedgerProjector,
} from "./courier/reactors/ledger_projection.ts";
import type { Environment, EnvironmentName } from "./environment.ts";
import { type Api, createApp } from "./http/app.ts";
import type { UndocumentedRefusal } from "./http/refusals.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { LoginThrottle } from "./http/login_throttle.ts";
import { OutboundDelivery } from "./platform/reactors/deliver.ts";
import { BillingEvents } from "./courier/reactors/billing_events.ts";
import { ClientWebhooks } from "./courier/reactors/client_webhooks.ts";
import { OwnerNotices } from "./platform/reactors/owner_notices.ts";
import { outboundAlerts } from "./courier/reactors/delivery_alerts.ts";
import { targetResolver } from "./courier/reactors/delivery_targets.ts";
import { ShipmentAlertRaiser } from "./courier/reactors/alert_raiser.ts";
import { ScanCharges } from "./courier/reactors/scan_charges.ts";
import { CustomsCharges } from "./courier/reactors/customs_charges.ts";
import { syncSubject } from "./db/sync.ts";
import { BILLING_SWEEP_MS, TIMER_POLL_MS } from "./limits.ts";
import { DeferredWorks } from "./platform/reactors/deferred.ts";
import { BookingCrossings } from "./courier/reactors/booking_crossings.ts";
import type { Clock } from "./runtime/clock.ts";
import { KvActorStore } from "./runtime/kv_store.ts";
import { ActorRuntime } from "./runtime/runtime.ts";

export interface EnvironmentOptions {
  readonly name: EnvironmentName;
  /** A KV file path, `:memory:`, or a KV Connect URL. */
  readonly kvPath: string;
  /** Postgres URL; embedded PGlite when absent. */
  readonly databaseUrl?: string;
  /** PGlite's folder; in memory when absent. */
  readonly pgliteDir?: string;
  /** The Postgres schema of this environment. */
  readonly schema: string;
  readonly bus: Bus;
  readonly clock: Clock;
  readonly dataKey: CryptoKey;
  readonly operatorTokenHash: string;
  readonly allowLoopbackWebhooks: boolean;
  /** The environment's public address (CONTRACT "Running" plus README `PUBLIC_URL`). */
  readonly publicUrl?: string;
  /** Routers mounted after the product's own (tests mount probes of shared guards). */
  readonly extraRouters?: readonly ((api: Api) => void)[];
  /** Strict mode (tests): each refusal a route answers that its document does not list. */
  readonly undocumentedRefusal?: (u: UndocumentedRefusal) => void;
}

export interface OpenEnvironment {
  readonly env: Environment;
  readonly app: Hono;
  readonly projector: Projector;
  /** Client ledger entries and invoices into Postgres (courier 2.6, 4.2). */
  readonly ledgerProjector: LedgerProjector;
  close(): Promise<void>;
}

export async function openEnvironment(o: EnvironmentOptions): Promise<OpenEnvironment> {
  const store = await KvActorStore.open(o.kvPath);
  const database = await openDatabase({
    schema: o.schema,
    ...(o.databaseUrl ? { url: o.databaseUrl } : {}),
    ...(o.pgliteDir ? { dataDir: o.pgliteDir } : {}),
  });
  // Subjects name the environment and the store's own identity: instances sharing the store
  // hear each other, while another deployment on the same NATS (staging beside production, a
  // test run beside a server) never receives this one's changes, nor projects them into its
  // query side (ARCHITECTURE "Environments": a bus subject prefix of its own).
  const busPrefix = `${o.name}_${await store.identity()}`;
  const projector = startProjector({ bus: o.bus, db: database.db, env: busPrefix });
  const ledgerProjector = startLedgerProjector({ bus: o.bus, db: database.db, env: busPrefix });
  const runtime = new ActorRuntime({
    env: o.name,
    busPrefix,
    store,
    bus: o.bus,
    clock: o.clock,
    definitions: ACTORS,
  });
  // Subscribed before the runtime starts, so events republished at start are seen as due.
  const targets = targetResolver(runtime, o.clock);
  // Work the workers below still fail after their retries is kept and tried again later.
  const deferral = new DeferredWorks({ runtime, bus: o.bus });
  const outbound = new OutboundDelivery({
    deferral,
    runtime,
    bus: o.bus,
    dataKey: o.dataKey,
    clock: o.clock,
    allowLoopback: o.allowLoopbackWebhooks,
    targets,
    ...outboundAlerts(runtime, database.db),
  });
  const billingEvents = new BillingEvents({
    runtime,
    bus: o.bus,
    db: database.db,
    targets,
    deferral,
  });
  const alertRaiser = new ShipmentAlertRaiser({ runtime, bus: o.bus, deferral });
  // Its charges stay due in the shipment, on the shipment's own timer: nothing to defer.
  const scanCharges = new ScanCharges({ runtime, bus: o.bus });
  // The same for clearance fees: due in the crossing, on the crossing's own timer.
  const customsCharges = new CustomsCharges({ runtime, bus: o.bus });
  const clientWebhooks = new ClientWebhooks({ runtime, bus: o.bus, deferral });
  const bookingCrossings = new BookingCrossings({ runtime, bus: o.bus, deferral });
  // Business API 5.6: the owner is e-mailed of a changed key, webhook secret or webhook address.
  const ownerNotices = new OwnerNotices({ runtime, bus: o.bus, deferral });
  await runtime.start(o.clock.kind === "system" ? { timerPollMs: TIMER_POLL_MS } : {});
  // Attempts are I/O, so they run beside the actors, as soon as their timers say they are due.
  // A pump may still be waiting on a slow endpoint when the next starts: the engine's caps on
  // attempts under way (INFLIGHT_ATTEMPTS_MAX, TENANT_INFLIGHT_ATTEMPTS_MAX) hold across pumps.
  const pumpLoop = setInterval(() => {
    outbound.pump().catch((e) => console.error("outbound delivery:", e));
  }, TIMER_POLL_MS);
  // Charges and completed shipments whose billing event, or bookings whose shipment, a crash or a
  // failure outlasting the handlers' retries kept from being made are found on the query side.
  const sweepLoop = setInterval(() => {
    billingEvents.sweep(database.db, o.clock.now())
      .catch((e) => console.error("billing event sweep:", e));
    billingEvents.sweepCompletions(database.db, o.clock.now())
      .catch((e) => console.error("completion event sweep:", e));
    completeStalledBookings(env, o.clock.now())
      .catch((e) => console.error("stalled booking sweep:", e));
    // Changes the projections could not write are tried again, in case the cause is gone.
    projector.retryParked().catch((e) => console.error("parked snapshot changes:", e));
    ledgerProjector.retryParked().catch((e) => console.error("parked ledger changes:", e));
  }, BILLING_SWEEP_MS);
  const settle = async () => {
    const id = crypto.randomUUID();
    const synced = [projector.synced(id), ledgerProjector.synced(id)];
    await o.bus.publish(syncSubject(busPrefix, id), { sync: id });
    await o.bus.flush();
    await Promise.all(synced);
  };
  const env: Environment = {
    name: o.name,
    runtime,
    clock: o.clock,
    bus: o.bus,
    db: database.db,
    dataKey: o.dataKey,
    operatorTokenHash: o.operatorTokenHash,
    allowLoopbackWebhooks: o.allowLoopbackWebhooks,
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    rateLimiter: new RateLimiter(o.clock),
    loginThrottle: new LoginThrottle(o.clock),
    outbound,
    billingEvents,
    scanCharges,
    customsCharges,
    clientWebhooks,
    bookingCrossings,
    settle,
  };
  return {
    env,
    app: createApp(
      env,
      [...ROUTERS, ...(o.extraRouters ?? [])],
      o.undocumentedRefusal ? { undocumentedRefusal: o.undocumentedRefusal } : {},
    ),
    projector,
    ledgerProjector,
    async close() {
      clearInterval(pumpLoop);
      clearInterval(sweepLoop);
      // Changes already published reach their handlers (billing events, webhooks, alerts) while
      // the runtime still answers them.
      await o.bus.flush();
      // The bus-driven workers stop first: what they would do next is due again after a restart
      // (timers and leases in KV, the sweep for billing events, charges due, work they defer as
      // they stop), never lost.
      await outbound.close();
      await billingEvents.close();
      await scanCharges.close();
      await customsCharges.close();
      await alertRaiser.close();
      await clientWebhooks.close();
      await bookingCrossings.close();
      await ownerNotices.close();
      await deferral.close();
      await runtime.close();
      await o.bus.flush();
      await projector.stop();
      await ledgerProjector.stop();
      store.close();
      await database.close();
    },
  };
}
