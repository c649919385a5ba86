/** Routes stay thin (STYLE 8): ask one actor, turn a refusal into its API error. */
import type { Context } from "hono";
import type { AnyActorDefinition, CommandOf, ReplyOf } from "../runtime/actor.ts";
import type { AskOptions } from "../runtime/runtime.ts";
import type { AppEnv } from "./context.ts";
import { fromRejection } from "./errors.ts";

export async function ask<D extends AnyActorDefinition>(
  c: Context<AppEnv>,
  def: D,
  tenant: string,
  id: string,
  command: CommandOf<D>,
  options?: AskOptions,
): Promise<ReplyOf<D>> {
  // The commands a route asks name its request, carried on to what follows them (an outbound
  // attempt's log line).
  const asked = { ...options, requestId: c.get("requestId") };
  const r = await c.get("env").runtime.ask(def, tenant, id, command, asked);
  if (!r.ok) throw fromRejection(r);
  return r.reply;
}

/** A command that changes nothing (a `get`), answered from the actor's committed state. */
export async function read<D extends AnyActorDefinition>(
  c: Context<AppEnv>,
  def: D,
  tenant: string,
  id: string,
  command: CommandOf<D>,
): Promise<ReplyOf<D>> {
  const r = await c.get("env").runtime.read(def, tenant, id, command);
  if (!r.ok) throw fromRejection(r);
  return r.reply;
}
