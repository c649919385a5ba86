/**
 * The delivery engine's due set (reactors/deliver.ts, issue 42 item 4): the events known to be
 * due, kept per tenant and, within a tenant, per recipient, and taken in turn: one tenant after
 * another, and within a tenant one recipient after another, the one served going to the back. So
 * one tenant's dead endpoint with thousands of pending events delays no other tenant's event by
 * more than a turn. Bounded in all and per tenant; a hint left out is no loss, since the event's
 * lease timer makes it due again.
 */
import type { Recipient } from "../../../actors/platform/outbound_event/mod.ts";

/** What the change that made an attempt due says of it: when, and to whom. */
export interface DueHint {
  readonly due_at: number;
  readonly recipient: Recipient;
  /**
   * Whether the attempt is owed from before (a retry, a wait for an endpoint, a requeue), not an
   * event's first: only such a backlog goes out at the recipient's bounded rate.
   */
  readonly backlog: boolean;
}

/** An event known to be due. */
export interface Due {
  readonly tenant: string;
  readonly id: string;
  readonly hint?: DueHint;
}

/** The queue (within a tenant) an event waits in: its recipient; "" for a fixed target. */
export function recipientOf(due: Due): string {
  const r = due.hint?.recipient;
  if (r === undefined) return "";
  return r.kind === "client" ? `client:${r.client_id}` : r.kind;
}

/** A recipient's queue: event key to its due, oldest first. */
type Queue = Map<string, Due>;

export class DueSet {
  readonly #max: number;
  readonly #tenantMax: number;
  /** Tenant to its recipients' queues; the first tenant, and its first queue, are served next. */
  readonly #tenants = new Map<string, Map<string, Queue>>();
  readonly #counts = new Map<string, number>();
  /** Event key to the queue it waits in. */
  readonly #queueOf = new Map<string, Queue>();

  constructor(limits: { readonly dueSetMax: number; readonly tenantDueSetMax: number }) {
    this.#max = limits.dueSetMax;
    this.#tenantMax = limits.tenantDueSetMax;
  }

  get size(): number {
    return this.#queueOf.size;
  }

  /** How many of `tenant`'s events are held. */
  countOf(tenant: string): number {
    return this.#counts.get(tenant) ?? 0;
  }

  /**
   * The backlog dues (DueHint.backlog) held per `tenant/recipient`, the key the engine paces
   * them by: what a pace shared across instances takes a budget for before a pump.
   */
  backlogs(): Map<string, number> {
    const waiting = new Map<string, number>();
    for (const [tenant, queues] of this.#tenants) {
      for (const [recipient, queue] of queues) {
        if (recipient === "") continue; // a fixed target's retries are not paced
        let count = 0;
        for (const due of queue.values()) if (due.hint?.backlog === true) count++;
        if (count > 0) waiting.set(`${tenant}/${recipient}`, count);
      }
    }
    return waiting;
  }

  /**
   * Remembers `due` under `key` (the same key again replaces it in place); answers false when it
   * is left out: its tenant holds its share, or the set is full and no tenant holds more.
   */
  add(key: string, due: Due): boolean {
    const waiting = this.#queueOf.get(key);
    if (waiting) {
      waiting.set(key, due);
      return true;
    }
    const held = this.countOf(due.tenant);
    if (held >= this.#tenantMax) return false;
    if (this.size >= this.#max && !this.#dropFromLargest(held)) return false;
    let queues = this.#tenants.get(due.tenant);
    if (!queues) this.#tenants.set(due.tenant, queues = new Map());
    const recipient = recipientOf(due);
    let queue = queues.get(recipient);
    if (!queue) queues.set(recipient, queue = new Map());
    queue.set(key, due);
    this.#queueOf.set(key, queue);
    this.#counts.set(due.tenant, held + 1);
    return true;
  }

  clear(): void {
    this.#tenants.clear();
    this.#counts.clear();
    this.#queueOf.clear();
  }

  /**
   * Takes up to `max` dues in turn. `admit` is asked for a queue's first due: true takes it (the
   * caller counts it as started), false passes that queue over for the rest of this take (its
   * tenant or recipient is at a cap, or the event's attempt is under way).
   */
  take(max: number, admit: (key: string, due: Due) => boolean): [string, Due][] {
    const taken: [string, Due][] = [];
    const refused = new Set<Queue>();
    let turn = [...this.#tenants.keys()];
    while (turn.length > 0 && taken.length < max) {
      const next: string[] = [];
      for (const tenant of turn) {
        if (taken.length >= max) break;
        const got = this.#takeOne(tenant, refused, admit);
        if (got === undefined) continue;
        taken.push(got);
        next.push(tenant);
      }
      turn = next;
    }
    return taken;
  }

  /** The first admitted due of `tenant`'s queues in turn; its queue and tenant go to the back. */
  #takeOne(
    tenant: string,
    refused: Set<Queue>,
    admit: (key: string, due: Due) => boolean,
  ): [string, Due] | undefined {
    const queues = this.#tenants.get(tenant);
    if (queues === undefined) return undefined;
    for (const [recipient, queue] of queues) {
      if (refused.has(queue)) continue;
      const first = queue.entries().next();
      if (first.done) continue; // never: an emptied queue is removed
      const [key, due] = first.value;
      if (!admit(key, due)) {
        refused.add(queue);
        continue;
      }
      queue.delete(key);
      queues.delete(recipient);
      if (queue.size > 0) queues.set(recipient, queue);
      this.#tenants.delete(tenant);
      if (queues.size > 0) this.#tenants.set(tenant, queues);
      this.#forget(tenant, key);
      return [key, due];
    }
    return undefined;
  }

  /**
   * The set is full: the tenant holding most gives up its newest hint (its lease makes it due
   * again), when it holds more than the tenant adding one (`held`) would; answers whether it did.
   */
  #dropFromLargest(held: number): boolean {
    let largest: string | undefined;
    let most = 0;
    for (const [tenant, count] of this.#counts) {
      if (count > most) [largest, most] = [tenant, count];
    }
    if (largest === undefined || most <= held + 1) return false;
    const queues = this.#tenants.get(largest)!;
    let fullest: [string, Queue] | undefined;
    for (const entry of queues) {
      if (fullest === undefined || entry[1].size > fullest[1].size) fullest = entry;
    }
    const [recipient, queue] = fullest!;
    const newest = [...queue.keys()].at(-1)!;
    queue.delete(newest);
    if (queue.size === 0) queues.delete(recipient);
    if (queues.size === 0) this.#tenants.delete(largest);
    this.#forget(largest, newest);
    return true;
  }

  /** `tenant`'s due under `key` is gone. */
  #forget(tenant: string, key: string): void {
    this.#queueOf.delete(key);
    const left = this.countOf(tenant) - 1;
    if (left > 0) this.#counts.set(tenant, left);
    else this.#counts.delete(tenant);
  }
}
