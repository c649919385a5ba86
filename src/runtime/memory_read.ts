/**
 * A command that changes nothing (a `get`, a credential check), answered from an actor's last
 * committed state in memory without waiting behind its mailbox (ActorRuntime.read).
 */
import { type AnyActorDefinition, asIfMissing } from "./actor.ts";
import type { Cell } from "./cell.ts";
import { newId } from "./ids.ts";
import type { AskResult } from "./plan.ts";

/**
 * The answer from memory, or undefined when the command must take its turn: the actor is not
 * loaded (or only assumed new), the command would write (events or timers), or deciding threw
 * (decided in turn instead, where a failure is reported as it always is).
 */
export function readInMemory(
  cell: Cell,
  def: AnyActorDefinition,
  tenant: string,
  id: string,
  command: unknown,
  now: number,
): AskResult<unknown> | undefined {
  if (cell.def !== def || !cell.loaded || cell.assumedNew) return undefined;
  if (cell.tenant !== null && cell.tenant !== tenant) {
    return asIfMissing(def, id, command, { now, newId });
  }
  try {
    const d = def.decide(cell.state, command, { now, newId });
    if (!d.ok) return d;
    if (d.events.length === 0 && (d.timers?.length ?? 0) === 0) {
      const reply = d.reply ? d.reply(cell.state, { seq: cell.seq }) : undefined;
      return { ok: true, reply, replayed: false };
    }
  } catch {
    // Decided in turn instead.
  }
  return undefined;
}
