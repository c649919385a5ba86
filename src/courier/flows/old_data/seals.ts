/**
 * Old data: a client's webhook secrets sealed before seals were bound to their owner (no `v`)
 * unseal in any record they are copied to. This pass seals each again for its client
 * (sealOwner "client_webhook"), keeping its key id and age, as a change of the secret would.
 */
import { courierClientActor } from "../../../../actors/courier/courier_client.ts";
import type { CourierClient } from "../../../../actors/courier/courier_client/state.ts";
import { boundSecrets } from "../../../domain/credentials.ts";
import { sealOwner } from "../../../domain/secrets.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";

/**
 * Binds every client webhook seal still unbound. Idempotent: a bound seal is left as it is.
 * Answers how many clients it changed.
 */
export async function bindClientSeals(runtime: ActorRuntime, dataKey: CryptoKey): Promise<number> {
  let changed = 0;
  for await (const { id, record } of runtime.stored(courierClientActor)) {
    const hook = (record.state as CourierClient | null)?.webhook;
    if (!hook) continue;
    const owner = sealOwner("client_webhook", record.tenant, id);
    const bound = await boundSecrets(dataKey, hook, owner);
    if (bound === null) continue;
    const r = await runtime.ask(courierClientActor, record.tenant, id, {
      kind: "bind_webhook_seals",
      ...bound,
    });
    if (!r.ok) throw new Error(`binding client ${id}'s seals: ${r.code}: ${r.message}`);
    changed++;
  }
  return changed;
}
