/**
 * The one signed delivery engine for outbound events (courier 3.1, 6.1, 6.2): performs attempts
 * for `outbound_event` actors and reports each outcome back to the actor, which owns the schedule.
 *
 * How due attempts are found: the runtime fires an event's durable `attempt` timer as a command
 * (`fireDueTimers`), but drops the reply, and an actor cannot do I/O. So the actor answers the
 * timer with an `attempt_due` event, which the runtime publishes on the bus after the commit; this
 * class subscribes to outbound_event changes and keeps the due (tenant, id) pairs in a bounded
 * in-memory set (due_set.ts), which `pump()` drains tenant by tenant and recipient by recipient in
 * turn, within the bounds of delivery_limits.ts: one tenant's dead endpoint with thousands of
 * pending events holds its share of the set and of the attempts under way, and delays no other
 * tenant's event; a recipient's backlog made due at once goes out at a bounded rate (issue 42
 * item 4), in all across the instances sharing a query side (issue 43 item 4). Nothing else is needed from the runtime, and nothing is lost in a restart: the set is
 * only a hint. The timer lives in KV and the actor re-arms it one lease (ATTEMPT_LEASE_MS) ahead
 * when it fires, so an attempt whose process died (or whose hint was left out of the set) is due
 * again and resumes from KV. The same feed carries `event_failed`, which raises `onFailed` after
 * the commit (republished on recovery, so an alert is at least once; raise it idempotently by
 * event id), and `event_delivered` of an event that waited for an endpoint, which calls
 * `onDeliveredAfterWait` the same way (resolve its alert), as `event_failed` of one calls
 * `onFailedAfterWait` (its wait is over: close that alert). An
 * alert whose raise fails is raised again within the delivery (src/bus/retry.ts), so a transient
 * failure loses none (courier 6.3), and one still failing is deferred (src/platform/reactors/deferred.ts) and
 * raised on a durable schedule. An attempt itself is outbound_attempt.ts; the alerts a change
 * raises, outbound_alerts.ts.
 */
import {
  type FirstAttempt,
  type NewOutboundEvent,
  outboundEventActor,
  type OutboundEventSummary,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, reporter, UnitReactor } from "../../bus/reactor.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Database } from "../../db/schema.ts";
import type { Kysely } from "kysely";
import { newId } from "../../runtime/ids.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { pinnedPost, type SendFn } from "../../outbound/pinned_post.ts";
import { silentLogger } from "../../observe/log.ts";
import { Metrics } from "../../observe/metrics.ts";
import type { Resolve } from "../../outbound/url_guard.ts";
import { type AlertCallbacks, alertsOf, type DueAlert } from "./outbound_alerts.ts";
import { type AttemptObserver, observeAttempt, observeEventFailed } from "./outbound_log.ts";
import {
  type AttemptBody,
  type AttemptDeps,
  type DeliveryTarget,
  type LocalReceivers,
  sendAttempt,
  type TargetLookup,
} from "./outbound_attempt.ts";

import { type DeliveryLimits, deliveryLimits } from "./delivery_limits.ts";
import { type Due, type DueHint, DueSet, recipientOf } from "./due_set.ts";
import { type RecipientPace, RecipientRate } from "./recipient_rate.ts";
import { SharedRecipientRate } from "./shared_recipient_rate.ts";

// Where the documents read a target's shape (their target lookups).
export type { DeliveryTarget } from "./outbound_attempt.ts";
export type { DueHint } from "./due_set.ts";
export {
  DUE_SET_MAX,
  INFLIGHT_ATTEMPTS_MAX,
  RECIPIENT_ATTEMPTS_PER_SECOND_MAX,
  TENANT_DUE_SET_MAX,
  TENANT_INFLIGHT_ATTEMPTS_MAX,
} from "./delivery_limits.ts";

export interface OutboundDeliveryOptions
  extends ReactorOptions, AlertCallbacks, Partial<AttemptObserver> {
  readonly runtime: ActorRuntime;
  /** The environment's data key, to unseal signing secrets for the moment of signing. */
  readonly dataKey: CryptoKey;
  readonly clock: Clock;
  /** ALLOW_LOOPBACK_WEBHOOKS: http://127.0.0.1 and http://localhost targets (tests, local runs). */
  readonly allowLoopback: boolean;
  /** The ports the operator allows besides 443, read at every attempt (none when absent). */
  readonly allowedPorts?: () => Promise<readonly number[]>;
  /** Sends one attempt; defaults to `pinnedPost`, connecting to the addresses just checked. */
  readonly send?: SendFn;
  /** DNS for the per-attempt target check; defaults to the system resolver. */
  readonly resolve?: Resolve;
  /** Where an event with a `recipient` goes now; null: no endpoint is configured. */
  readonly targets?: TargetLookup;
  /** Target URLs that name a receiver built into the service (the sandbox inbox). */
  readonly receivers?: LocalReceivers;
  /** The body of each attempt, where a feature renews part of it (shopping 6's links). */
  readonly bodyOf?: AttemptBody;
  /** The engine's bounds; the production ones (delivery_limits.ts) for any not given. */
  readonly limits?: Partial<DeliveryLimits>;
  /**
   * The query side the instances of a deployment share: a recipient's backlog is paced there,
   * across them (shared_recipient_rate.ts, issue 43 item 4); absent, in this instance's memory.
   */
  readonly paceDb?: Kysely<Database>;
}

export class OutboundDelivery {
  readonly #o: OutboundDeliveryOptions;
  readonly #attempts: AttemptDeps;
  readonly #report: (error: unknown, where: string) => void;
  /** Where attempts are logged and counted; nowhere when the options name none (tests). */
  readonly #observer: AttemptObserver;
  readonly #limits: DeliveryLimits;
  readonly #due: DueSet;
  /** Pumped attempts per recipient this second (RECIPIENT_ATTEMPTS_PER_SECOND_MAX). */
  readonly #rate: RecipientPace;
  /** Events (tenant/id) with an attempt under way from a pump, and how many per tenant. */
  readonly #running = new Set<string>();
  readonly #tenantRunning = new Map<string, number>();
  readonly #inflight = new Set<Promise<unknown>>();
  /** First attempts under way (attemptFirst), per tenant. */
  readonly #firstRunning = new Map<string, number>();
  /** Tracked apart from attempts: close() waits for the alerts a change is raising. */
  readonly #changes: UnitReactor<DueAlert>;
  #closed = false;

  constructor(options: OutboundDeliveryOptions) {
    this.#o = options;
    this.#limits = deliveryLimits(options.limits);
    this.#due = new DueSet(this.#limits);
    this.#report = reporter(options, "outbound");
    this.#observer = {
      log: options.log ?? silentLogger(),
      metrics: options.metrics ?? new Metrics(),
    };
    const perSecond = this.#limits.recipientAttemptsPerSecondMax;
    this.#rate = options.paceDb
      ? new SharedRecipientRate({ db: options.paceDb, perSecond, log: this.#observer.log })
      : new RecipientRate(perSecond);
    this.#attempts = {
      dataKey: options.dataKey,
      clock: options.clock,
      allowLoopback: options.allowLoopback,
      allowedPorts: options.allowedPorts,
      send: options.send ?? ((request) => pinnedPost(request)),
      resolve: options.resolve,
      targets: options.targets,
      receivers: options.receivers,
      bodyOf: options.bodyOf,
    };
    // The alerts of many events are raised side by side (their export lookups share one
    // statement), one event's changes still in order; a deferred try raises the alerts only: the
    // attempt it noted due was seen to then.
    this.#changes = new UnitReactor(options, {
      worker: "outbound_alerts",
      actorType: outboundEventActor.type,
      unitsOf: (change) => alertsOf(change, options),
      work: async (alert, change) =>
        await alert.raise(change.tenant, change.snapshot as OutboundEventSummary),
      describe: (alert, change) => `${alert.name} ${change.id}`,
      observe: (change) => this.#noteDue(change),
    });
  }

  /** Events known to be due and not yet attempted by this process. */
  get dueCount(): number {
    return this.#due.size;
  }

  /** Attempts under way from pumps, across all of them (at most INFLIGHT_ATTEMPTS_MAX). */
  get attemptsInFlight(): number {
    return this.#running.size;
  }

  /**
   * Performs one attempt for every event known to be due, as the engine's and each tenant's caps
   * allow; answers how many this pump attempted. Pumps may overlap: the caps hold across them. An
   * event skipped for a cap, or whose attempt is still under way, stays due for a later start.
   */
  async pump(): Promise<number> {
    let attempted = 0;
    const mine = new Set<Promise<void>>();
    // The shared pace's budget is taken beside the first selection: first attempts never wait
    // on the database; the backlog is selected again once its budget is in.
    let reserving = this.#reserve()?.then(() => {
      reserving = undefined;
    });
    while (true) {
      for (const [key, due] of this.#startable()) {
        const run: Promise<void> = this.#run(key, due).then((made) => {
          if (made) attempted++;
          mine.delete(run);
        });
        mine.add(run);
      }
      if (mine.size === 0 && reserving === undefined) return attempted;
      // A finished attempt frees a slot, its tenant's too, and a budget taken lets the backlog
      // go: look again.
      await Promise.race(reserving ? [...mine, reserving] : mine);
    }
  }

  /**
   * A pace shared across instances is given the backlog waiting here, while the selection, which
   * stays synchronous, spends only the budget taken (issue 43 item 4); undefined when there is
   * nothing to take (the in-memory pace needs nothing).
   */
  #reserve(): Promise<void> | undefined {
    if (this.#rate.reserve === undefined || this.#closed) return undefined;
    const waiting = this.#due.backlogs();
    return waiting.size > 0 ? this.#rate.reserve(waiting, this.#o.clock.now()) : undefined;
  }

  /**
   * Due events that may start now, taken out of the due set in turn (tenant by tenant, recipient
   * by recipient) and counted as under way.
   */
  #startable(): [string, Due][] {
    const room = this.#limits.inflightMax - this.#running.size;
    if (this.#closed || room <= 0) return [];
    return this.#due.take(room, (key, due) => this.#admit(key, due));
  }

  /** Whether `due` may start now, as its tenant's and recipient's caps allow; if so, counted. */
  #admit(key: string, due: Due): boolean {
    if (this.#running.has(key)) return false;
    const tenantRunning = this.#tenantRunning.get(due.tenant) ?? 0;
    if (tenantRunning >= this.#limits.tenantInflightMax) return false;
    // A fixed target's retries are spread by their own schedules; a recipient's backlog may all
    // be made due at once when it sets an endpoint (courier 3.1), so it goes out at a rate. An
    // event's first attempt is live traffic, never held back by the rate (a healthy endpoint
    // takes what it answers).
    const recipient = recipientOf(due);
    const rated = recipient !== "" && due.hint?.backlog === true;
    if (rated && !this.#rate.take(`${due.tenant}/${recipient}`, this.#o.clock.now())) {
      return false;
    }
    this.#running.add(key);
    this.#tenantRunning.set(due.tenant, tenantRunning + 1);
    return true;
  }

  /** One counted attempt; never rejects (a failure is reported), always frees its slot. */
  #run(key: string, due: Due): Promise<boolean> {
    const running = this.attempt(due.tenant, due.id, due.hint)
      .catch((e) => {
        this.#report(e, "outbound attempt");
        return false;
      })
      .finally(() => {
        this.#running.delete(key);
        const left = (this.#tenantRunning.get(due.tenant) ?? 1) - 1;
        if (left > 0) this.#tenantRunning.set(due.tenant, left);
        else this.#tenantRunning.delete(due.tenant);
        this.#inflight.delete(running);
      });
    this.#inflight.add(running);
    return running;
  }

  /** One attempt for one event, if it is pending; answers whether an attempt was made. */
  async attempt(tenant: string, id: string, hint?: DueHint): Promise<boolean> {
    const { runtime } = this.#o;
    // The target looked up once, before the claim: with none, the attempt is noted in one write
    // and nothing is claimed; a failed lookup is looked up again, and reported, by the attempt.
    let target: DeliveryTarget | null | undefined;
    if (hint && this.#o.targets) {
      target = await this.#o.targets(tenant, hint.recipient).catch(() => undefined);
    }
    if (hint && target === null) {
      const noted = await runtime.ask(outboundEventActor, tenant, id, {
        kind: "endpoint_missing",
        due_at: hint.due_at,
      });
      if (noted.ok && noted.reply) {
        observeAttempt(this.#observer, tenant, noted.reply, null, { result: "no_endpoint" });
      }
      return noted.ok;
    }
    const attemptId = newId("att");
    // The claim makes this process the event's one sender: with several instances on one bus,
    // every one hears `attempt_due`, and only the first claim is accepted.
    const got = await runtime.ask(outboundEventActor, tenant, id, {
      kind: "claim",
      attempt_id: attemptId,
    });
    if (!got.ok || got.reply === undefined || got.reply.status !== "pending") return false;
    const outcome = await sendAttempt(
      this.#attempts,
      tenant,
      got.reply,
      attemptId,
      target ?? undefined,
    );
    observeAttempt(this.#observer, tenant, got.reply, attemptId, outcome);
    // No idempotency key: the event itself knows its attempts by id (a report of one it holds
    // changes nothing), so a reply kept in the store per attempt would serve no replay.
    const recorded = await runtime.ask(outboundEventActor, tenant, id, {
      kind: "record_attempt",
      attempt_id: attemptId,
      outcome,
    });
    if (!recorded.ok) this.#report(new Error(recorded.message), `record attempt ${id}`);
    return true;
  }

  /**
   * The first attempt of an event no actor holds yet, made at once to `target` by whoever is
   * about to make the event (an outbox's handler, issue 36 item 2): signed, sent, logged and
   * counted as any attempt; answers its id and outcome, which the caller records (a delivery-log
   * row, or the actor made with it). Never throws: a failure is an outcome. Null: not attempted,
   * the tenant has TENANT_INFLIGHT_ATTEMPTS_MAX first attempts under way (an endpoint answering
   * slowly holds no more of the outbox's handlers): the caller makes the event's actor, whose
   * attempt the pumps make under their caps.
   */
  async attemptFirst(
    tenant: string,
    event: NewOutboundEvent,
    target: DeliveryTarget,
  ): Promise<FirstAttempt | null> {
    const running = this.#firstRunning.get(tenant) ?? 0;
    if (running >= this.#limits.tenantInflightMax) return null;
    this.#firstRunning.set(tenant, running + 1);
    try {
      const attemptId = newId("att");
      const outcome = await sendAttempt(this.#attempts, tenant, event, attemptId, target);
      observeAttempt(this.#observer, tenant, event, attemptId, outcome);
      return { attempt_id: attemptId, outcome };
    } finally {
      const left = (this.#firstRunning.get(tenant) ?? 1) - 1;
      if (left > 0) this.#firstRunning.set(tenant, left);
      else this.#firstRunning.delete(tenant);
    }
  }

  /** Stops taking due events and waits for the attempts under way (their leases cover a crash). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#due.clear();
    await this.#changes.close();
    await Promise.all([...this.#inflight]);
  }

  /** An attempt the change made due is remembered for the next pump (a hint, bounded). */
  #noteDue(change: ActorChange): void {
    const kinds = change.events.map((e) => (e.event as { kind?: unknown }).kind);
    if (kinds.includes("event_failed")) {
      observeEventFailed(this.#observer, change.tenant, change.id);
    }
    if (!kinds.includes("attempt_due")) return;
    const key = `${change.tenant}/${change.id}`;
    const due = change.events.findLast((e) =>
      (e.event as { kind?: unknown }).kind === "attempt_due"
    );
    const summary = change.snapshot as OutboundEventSummary | undefined;
    const recipient = summary?.recipient;
    const backlog = summary !== undefined && (summary.attempts_total > 0 ||
      summary.endpoint_missing_at != null || summary.requeues_total > 0);
    // Left out when its tenant holds its share or the set is full: its lease makes it due again.
    this.#due.add(key, {
      tenant: change.tenant,
      id: change.id,
      ...(due && recipient ? { hint: { due_at: due.at, recipient, backlog } } : {}),
    });
  }
}
