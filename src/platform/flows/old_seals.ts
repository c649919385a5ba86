/**
 * Old data: a business's webhook secrets sealed before seals were bound to their owner (no `v`)
 * unseal in any record they are copied to, until the secret is rotated. This pass seals each
 * again for its business (sealOwner "business_webhook"), keeping its key id and age.
 */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import type { Business } from "../../../actors/platform/business/types.ts";
import { boundSecrets } from "../../domain/credentials.ts";
import { sealOwner } from "../../domain/secrets.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/**
 * Binds every business webhook seal still unbound. Idempotent: a bound seal is left as it is.
 * Answers how many businesses it changed.
 */
export async function bindBusinessSeals(
  runtime: ActorRuntime,
  dataKey: CryptoKey,
): Promise<number> {
  let changed = 0;
  for await (const { id, record } of runtime.stored(businessActor)) {
    const b = record.state as Business | null;
    if (b === null) continue;
    const held = { secret: b.webhook_secret, previous: b.webhook_secret_previous ?? null };
    const bound = await boundSecrets(dataKey, held, sealOwner("business_webhook", id, id));
    if (bound === null) continue;
    const r = await runtime.ask(businessActor, record.tenant, id, {
      kind: "bind_webhook_seals",
      ...bound,
    });
    if (!r.ok) throw new Error(`binding business ${id}'s seals: ${r.code}: ${r.message}`);
    changed++;
  }
  return changed;
}
