/** The actor both sides of the forwarding bench run (forwarding.ts, forwarding_worker.ts). */
import { accept, type ActorDefinition } from "../src/runtime/actor.ts";

/** The instance holding every partition in the bench; the other holds none. */
export const HOLDER = "holder";

/** A counter: each `add` one event and one commit, answering the count; `get` writes nothing. */
export const benchCounter: ActorDefinition<
  number,
  { kind: "add" } | { kind: "get" },
  { kind: "added" },
  number
> = {
  type: "bench_fwd_counter",
  version: 1,
  initial: 0,
  decide: (_s, c) =>
    c.kind === "add" ? accept([{ kind: "added" }], (s) => s) : accept([], (s) => s),
  evolve: (s) => s + 1,
};
