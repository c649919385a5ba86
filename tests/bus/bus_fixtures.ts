/** What the bus tests share: the implementations under test, fresh subject prefixes, and waiting for deliveries. */
import assert from "node:assert/strict";
import type { Bus, BusMessage } from "../../src/bus/mod.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { NatsBus } from "../../src/bus/nats_bus.ts";

/** How long a test waits for a delivery before failing, and how often it looks. */
export const WAIT_MS_MAX = 5_000;
export const WAIT_POLL_MS = 5;

export interface Implementation {
  readonly name: string;
  open(): Promise<Bus>;
}

export const natsUrl = Deno.env.get("NATS_URL");
export const implementations: Implementation[] = [
  { name: "memory", open: () => Promise.resolve(new MemoryBus()) },
];
if (natsUrl) implementations.push({ name: "nats", open: () => NatsBus.connect(natsUrl) });

/** A fresh first token, so no two tests (or runs) share subjects on one server. */
export function uniqueEnv(): string {
  return `t${crypto.randomUUID().replaceAll("-", "")}`;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS_MAX;
  while (!condition()) {
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${WAIT_MS_MAX} ms waiting for: ${what}`);
    }
    await delay(WAIT_POLL_MS);
  }
}

/** Subscribes and records every message it receives, in order. */
export function collect(bus: Bus, pattern: string): BusMessage[] {
  const received: BusMessage[] = [];
  bus.subscribe(pattern, (message) => {
    received.push(message);
  });
  return received;
}

/** The `n` of a `{ n }` test payload. */
export function numberIn(message: BusMessage): number {
  const payload = message.payload;
  assert.ok(typeof payload === "object" && payload !== null && "n" in payload);
  assert.equal(typeof payload.n, "number");
  return Number(payload.n);
}

export function subjects(messages: readonly BusMessage[]): string[] {
  return messages.map((m) => m.subject);
}

/** Publishes the subjects in order, then waits until `sentinel` has reached every collector. */
export async function publishAndSettle(
  bus: Bus,
  published: readonly string[],
  collectors: readonly BusMessage[][],
): Promise<void> {
  for (const subject of published) await bus.publish(subject, { subject });
  const sentinel = published.at(-1);
  await bus.flush();
  await waitFor(
    `${sentinel} delivered`,
    () => collectors.every((c) => c.some((m) => m.subject === sentinel)),
  );
}

/** Opens a bus for one test and always drains it, so no connection or timer outlives it. */
export function busTest(
  impl: Implementation,
  name: string,
  fn: (bus: Bus, env: string) => Promise<void>,
): void {
  Deno.test(`bus (${impl.name}): ${name}`, async () => {
    const bus = await impl.open();
    try {
      await fn(bus, uniqueEnv());
    } finally {
      await bus.drain();
    }
  });
}
