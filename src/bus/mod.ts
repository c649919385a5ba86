/** The change feed: `openBus` picks NATS when a URL is configured, the in-process bus otherwise. */
import type { Bus } from "./bus.ts";
import { MemoryBus } from "./memory_bus.ts";

export type { ActorChange, Bus, BusHandler, BusMessage, Subscription } from "./bus.ts";
export { subjectOf, subjectPattern } from "./bus.ts";

export async function openBus(natsUrl: string | undefined): Promise<Bus> {
  if (natsUrl === undefined || natsUrl === "") return new MemoryBus();
  // Loaded only when used, so the in-process setup never loads the NATS client.
  const { NatsBus } = await import("./nats_bus.ts");
  return await NatsBus.connect(natsUrl);
}
