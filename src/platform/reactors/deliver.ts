/**
 * The one signed delivery engine for outbound events (courier 3.1, 6.1, 6.2): performs attempts
 * for `outbound_event` actors and reports each outcome back to the actor, which owns the schedule.
 *
 * How due attempts are found: the runtime fires an event's durable `attempt` timer as a command
 * (`fireDueTimers`), but drops the reply, and an actor cannot do I/O. So the actor answers the
 * timer with an `attempt_due` event, which the runtime publishes on the bus after the commit; this
 * class subscribes to outbound_event changes and keeps the due (tenant, id) pairs in a bounded
 * in-memory set, which `pump()` drains. Nothing else is needed from the runtime, and nothing is
 * lost in a restart: the set is only a hint. The timer lives in KV and the actor re-arms it one
 * lease (ATTEMPT_LEASE_MS) ahead when it fires, so an attempt whose process died (or whose hint
 * was dropped from a full set) is due again and resumes from KV. The same feed carries
 * `event_failed`, which raises `onFailed` after the commit (republished on recovery, so an alert
 * is at least once; raise it idempotently by event id), and `event_delivered` of an event that
 * waited for an endpoint, which calls `onDeliveredAfterWait` the same way (resolve its alert). An
 * alert whose raise fails is raised again within the delivery (src/bus/retry.ts), so a transient
 * failure loses none (courier 6.3), and one still failing is deferred (src/bus/deferred.ts) and
 * raised on a durable schedule.
 */
import {
  type AttemptOutcome,
  type OutboundEvent,
  outboundEventActor,
  type OutboundEventSummary,
  type OutboundTarget,
  type Recipient,
  waitedForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { ActorChange, Bus } from "../../bus/bus.ts";
import { subjectPattern } from "../../bus/bus.ts";
import { type KeyedSubscription, subscribeKeyed } from "../../bus/keyed.ts";
import { eachRetried, type RetryPolicy } from "../../bus/retry.ts";
import type { Deferral } from "../../bus/keyed.ts";
import { sealOwner, unseal } from "../../domain/secrets.ts";
import { v2Headers, v3Headers } from "../../domain/signatures.ts";
import type { Clock } from "../../runtime/clock.ts";
import { newId } from "../../runtime/ids.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { ATTEMPT_ERROR_CHARS_MAX, ATTEMPT_TIMEOUT_MS, clip } from "../rules/delivery_schedule.ts";
import { pinnedPost, type SendFn } from "../../outbound/pinned_post.ts";
import { checkDeliveryTarget, type Resolve } from "../../outbound/url_guard.ts";

/** Due events remembered between pumps; past this a hint is dropped (its lease re-fires it). */
export const DUE_SET_MAX = 10_000;
/**
 * Attempts under way at once across every pump of the engine (pumps overlap: one starts each
 * TIMER_POLL_MS), each a socket and a body of up to OUTBOUND_BODY_BYTES_MAX: some 15 MB at most.
 */
export const INFLIGHT_ATTEMPTS_MAX = 32;
/**
 * Attempts under way at once for one tenant: a quarter of the engine, so a tenant whose endpoint
 * answers slowly holds at most this many sockets and the other slots stay free for other tenants.
 */
export const TENANT_INFLIGHT_ATTEMPTS_MAX = 8;

/** Raises an operations alert about one outbound event. */
export type AlertCallback = (
  tenant: string,
  event: OutboundEventSummary,
) => void | Promise<void>;

export interface OutboundDeliveryOptions {
  readonly runtime: ActorRuntime;
  /** The bus the runtime publishes on. */
  readonly bus: Bus;
  /** The environment's data key, to unseal signing secrets for the moment of signing. */
  readonly dataKey: CryptoKey;
  readonly clock: Clock;
  /** ALLOW_LOOPBACK_WEBHOOKS: http://127.0.0.1 and http://localhost targets (tests, local runs). */
  readonly allowLoopback: boolean;
  /** Sends one attempt; defaults to `pinnedPost`, connecting to the addresses just checked. */
  readonly send?: SendFn;
  /** DNS for the per-attempt target check; defaults to the system resolver. */
  readonly resolve?: Resolve;
  /** Where an event with a `recipient` goes now; null: no endpoint is configured. */
  readonly targets?: (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>;
  /** Called once an event has failed its whole schedule (raise the operations alert). */
  readonly onFailed?: AlertCallback;
  /** Called when an attempt found no endpoint configured (courier 3.1). */
  readonly onEndpointMissing?: AlertCallback;
  /**
   * Called once an event that an hourly retry found with no endpoint is delivered (resolve the
   * alert its wait raised); never for one that did not wait, so a delivery costs nothing more.
   */
  readonly onDeliveredAfterWait?: AlertCallback;
  readonly onError?: (error: unknown, where: string) => void;
  /** How often each alert callback is tried before its failure is reported. */
  readonly retry?: RetryPolicy;
  /** Where an alert still failing after those tries is kept to be raised later. */
  readonly deferral?: Deferral;
}

/** A target as resolved for one attempt, with the rotated-out key still in its grace period. */
export interface DeliveryTarget extends OutboundTarget {
  readonly previous?: {
    readonly key_id: string;
    readonly sealed_secret: OutboundTarget["sealed_secret"];
  } | null;
}

interface Due {
  readonly tenant: string;
  readonly id: string;
  readonly hint?: DueHint;
}

/** What the change that made an attempt due says of it: when, and to whom. */
export interface DueHint {
  readonly due_at: number;
  readonly recipient: Recipient;
}

export class OutboundDelivery {
  readonly #o: OutboundDeliveryOptions;
  readonly #transport: SendFn;
  readonly #due = new Map<string, Due>();
  /** Events (tenant/id) with an attempt under way from a pump, and how many per tenant. */
  readonly #running = new Set<string>();
  readonly #tenantRunning = new Map<string, number>();
  readonly #inflight = new Set<Promise<unknown>>();
  /** Tracked apart from attempts: close() waits for the alerts a change is raising. */
  readonly #changes: KeyedSubscription;
  #closed = false;

  constructor(options: OutboundDeliveryOptions) {
    this.#o = options;
    this.#transport = options.send ?? ((request) => pinnedPost(request));
    // The alerts of many events are raised side by side (their export lookups share one
    // statement), one event's changes still in order.
    this.#changes = subscribeKeyed(
      options.bus,
      subjectPattern(options.runtime.busPrefix, "*", outboundEventActor.type),
      (m) => this.#onChange(m.payload),
      // A deferred try raises the alerts only: the attempt it noted due was seen to then.
      options.deferral
        ? {
          by: options.deferral,
          worker: "outbound_alerts",
          retry: (m) => this.#raiseAlerts(m.payload as ActorChange),
          wants: (m) => this.#alertsOf(m.payload as ActorChange).length > 0,
        }
        : undefined,
    );
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
    while (true) {
      for (const [key, due] of this.#startable()) {
        const run: Promise<void> = this.#run(key, due).then((made) => {
          if (made) attempted++;
          mine.delete(run);
        });
        mine.add(run);
      }
      if (mine.size === 0) return attempted;
      // A finished attempt frees a slot, its tenant's too: look again.
      await Promise.race(mine);
    }
  }

  /** Due events that may start now, taken out of the due set and counted as under way. */
  #startable(): [string, Due][] {
    const picked: [string, Due][] = [];
    if (this.#closed) return picked;
    for (const [key, due] of this.#due) {
      if (this.#running.size >= INFLIGHT_ATTEMPTS_MAX) break;
      if (this.#running.has(key)) continue;
      const tenantRunning = this.#tenantRunning.get(due.tenant) ?? 0;
      if (tenantRunning >= TENANT_INFLIGHT_ATTEMPTS_MAX) continue;
      this.#due.delete(key);
      this.#running.add(key);
      this.#tenantRunning.set(due.tenant, tenantRunning + 1);
      picked.push([key, due]);
    }
    return picked;
  }

  /** One counted attempt; never rejects (a failure is reported), always frees its slot. */
  #run(key: string, due: Due): Promise<boolean> {
    const running = this.attempt(due.tenant, due.id, due.hint)
      .catch((e) => {
        this.#error(e, "outbound attempt");
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
    const outcome = await this.#send(tenant, got.reply, attemptId, target ?? undefined);
    const recorded = await runtime.ask(outboundEventActor, tenant, id, {
      kind: "record_attempt",
      attempt_id: attemptId,
      outcome,
    }, { idempotencyKey: attemptId });
    if (!recorded.ok) this.#error(new Error(recorded.message), `record attempt ${id}`);
    return true;
  }

  /** Stops taking due events and waits for the attempts under way (their leases cover a crash). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#due.clear();
    await this.#changes.close();
    await Promise.all([...this.#inflight]);
  }

  async #send(
    tenant: string,
    event: OutboundEvent,
    attemptId: string,
    known?: DeliveryTarget,
  ): Promise<AttemptOutcome> {
    const options = this.#o;
    let target: DeliveryTarget | null;
    try {
      target = event.target ?? known ??
        (options.targets && event.recipient
          ? await options.targets(tenant, event.recipient)
          : null);
    } catch (e) {
      return failed(null, `target_lookup_failed: ${messageOf(e)}`);
    }
    if (target === null) return { result: "no_endpoint" };
    // Checked again at every attempt: a name may have been pointed inward since it was saved.
    const verdict = await checkDeliveryTarget(target.url, {
      allowLoopback: options.allowLoopback,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    if (!verdict.ok) return failed(null, `url_refused: ${verdict.message}`);
    let headers: Record<string, string>;
    try {
      headers = await this.#headers(tenant, event, target, attemptId);
    } catch (e) {
      return failed(null, `signing_failed: ${messageOf(e)}`);
    }
    const abort = new AbortController();
    const timeout = setTimeout(() => abort.abort(), ATTEMPT_TIMEOUT_MS);
    try {
      // Sent to the addresses checked above, never to a second lookup of the name.
      const response = await this.#transport({
        url: verdict.url,
        addresses: verdict.addresses ?? [],
        headers,
        body: event.raw_body,
        signal: abort.signal,
      });
      // A 3xx is a failure: a redirect could lead anywhere the target check never saw.
      if (response.status >= 200 && response.status < 300) {
        return { result: "delivered", http_status: response.status };
      }
      return failed(response.status, null);
    } catch (e) {
      return failed(null, abort.signal.aborted ? "timeout" : `fetch_failed: ${messageOf(e)}`);
    } finally {
      clearTimeout(timeout);
    }
  }

  async #headers(
    tenant: string,
    event: OutboundEvent,
    target: DeliveryTarget,
    attemptId: string,
  ): Promise<Record<string, string>> {
    const { dataKey } = this.#o;
    const owner = secretOwnerOf(tenant, event);
    const secret = await unseal(dataKey, target.sealed_secret, owner);
    const previous = target.previous
      ? {
        keyId: target.previous.key_id,
        secret: await unseal(dataKey, target.previous.sealed_secret, owner),
      }
      : null;
    const timestamp = Math.floor(this.#o.clock.now() / 1000);
    if (event.stream === "billing") {
      return await v3Headers({
        secret,
        keyId: target.key_id,
        eventId: event.event_id,
        attemptId,
        deliveryTimestamp: timestamp,
        rawBody: event.raw_body,
        previous,
      });
    }
    return await v2Headers({
      secret,
      event: event.event_type,
      deliveryId: event.event_id,
      timestamp,
      rawBody: event.raw_body,
      previous,
    });
  }

  async #onChange(payload: unknown): Promise<void> {
    const change = payload as ActorChange;
    const kinds = change.events.map((e) => (e.event as { kind?: unknown }).kind);
    if (kinds.includes("attempt_due")) {
      const key = `${change.tenant}/${change.id}`;
      if (this.#due.size < DUE_SET_MAX || this.#due.has(key)) {
        const due = change.events.findLast((e) =>
          (e.event as { kind?: unknown }).kind === "attempt_due"
        );
        const recipient = (change.snapshot as OutboundEventSummary | undefined)?.recipient;
        this.#due.set(key, {
          tenant: change.tenant,
          id: change.id,
          ...(due && recipient ? { hint: { due_at: due.at, recipient } } : {}),
        });
      }
    }
    await this.#raiseAlerts(change);
  }

  /** The alert callbacks, as the change calls for them, each retried. */
  #raiseAlerts(change: ActorChange): Promise<void> {
    return eachRetried(
      this.#alertsOf(change),
      async (alert) => await alert.raise(change.tenant, change.snapshot as OutboundEventSummary),
      (error, alert) => this.#error(error, `${alert.name} ${change.id}`),
      `alerts of ${change.id}`,
      this.#o.retry,
    );
  }

  /**
   * The alert callbacks a change calls for (an event failed, found no endpoint, or was delivered
   * after waiting for one). Read from the change alone: no ask, no read.
   */
  #alertsOf(change: ActorChange): { name: string; raise: AlertCallback }[] {
    if (change.snapshot === undefined) return [];
    const kinds = new Set(change.events.map((e) => (e.event as { kind?: unknown }).kind));
    const { onFailed, onEndpointMissing, onDeliveredAfterWait } = this.#o;
    const event = change.snapshot as OutboundEventSummary;
    // spec: courier 2.9, 3.1: only an event an hourly retry found waiting may have an alert to
    // resolve; every other delivery (the booking hot path) costs nothing more. A change published
    // before `endpoint_waited_at` was kept says no wait (the delivery cleared endpoint_missing_at).
    const waited = kinds.has("event_delivered") &&
      waitedForEndpoint(event, event.endpoint_waited_at);
    return [
      ...(kinds.has("event_failed") && onFailed ? [{ name: "onFailed", raise: onFailed }] : []),
      ...(kinds.has("endpoint_missing") && onEndpointMissing
        ? [{ name: "onEndpointMissing", raise: onEndpointMissing }]
        : []),
      ...(waited && onDeliveredAfterWait
        ? [{ name: "onDeliveredAfterWait", raise: onDeliveredAfterWait }]
        : []),
    ];
  }

  #error(error: unknown, where: string): void {
    if (this.#o.onError) this.#o.onError(error, where);
    else console.error(`outbound: ${where}:`, error);
  }
}

/**
 * Whose secret signs an event, as sealOwner names it: the event's own fixed target, else the
 * record its recipient's target is read from (the business, or the client).
 */
export function secretOwnerOf(
  tenant: string,
  event: Pick<OutboundEvent, "event_id" | "target" | "recipient">,
): string {
  if (event.target) return sealOwner("outbound_target", tenant, event.event_id);
  if (event.recipient?.kind === "client") {
    return sealOwner("client_webhook", tenant, event.recipient.client_id);
  }
  return sealOwner("business_webhook", tenant, tenant);
}

function failed(status: number | null, error: string | null): AttemptOutcome {
  return {
    result: "failed",
    http_status: status,
    error: error === null ? null : clip(error, ATTEMPT_ERROR_CHARS_MAX),
  };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
