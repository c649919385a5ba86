/**
 * The holder of the forwarding bench (forwarding.ts): a runtime in a process of its own holding
 * every partition, on the bench's KV file and NATS, serving forwarded asks until its stdin
 * closes. Arguments: the KV file, the runtime's env (its bus prefix), the NATS URL.
 */
import { NatsBus } from "../src/bus/nats_bus.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";
import { ForwardCluster } from "../tests/helpers/forward_placement.ts";
import { benchCounter, HOLDER } from "./forwarding_actor.ts";

const [kvPath, env, natsUrl] = Deno.args;
if (!kvPath || !env || !natsUrl) {
  throw new Error("usage: forwarding_worker.ts KV_PATH ENV NATS_URL");
}
const store = await KvActorStore.open(kvPath);
const bus = await NatsBus.connect(natsUrl);
const runtime = new ActorRuntime({
  env,
  store,
  bus,
  clock: new SystemClock(),
  definitions: [benchCounter],
  placement: new ForwardCluster(() => HOLDER).placement(HOLDER),
});
await runtime.start();
await bus.flush(); // its partitions' subscriptions are on the server before it says so
console.log("ready");
// Serves until the bench closes our stdin.
for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
await runtime.close();
await bus.drain();
await store.close();
