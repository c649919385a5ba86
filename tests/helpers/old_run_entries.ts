/**
 * A run's driver entries as the code before per-run keys stored them (network_run state version
 * 2): `<driver>|<waybill>` in its record's indexes and in the index, one entry per driver and
 * waybill, the target of whichever run wrote it last. Written straight into the KV file of a
 * closed environment, as that code would have left it: without the re-index pass done.
 */
import { DRIVER_WAYBILL_INDEX, networkRunActor } from "../../actors/courier/network_run/mod.ts";
import { decodeIndex } from "../../src/runtime/index_keys.ts";
import { ACTOR, INDEX, PASS_DONE } from "../../src/runtime/kv_layout.ts";
import { reindexPass } from "../../src/runtime/reindex.ts";
import type { ActorRecord, IndexTarget } from "../../src/runtime/store.ts";

export async function writeOldShapeEntries(kvPath: string, runIds: readonly string[]) {
  const kv = await Deno.openKv(kvPath);
  try {
    for (const id of runIds) {
      const at = [ACTOR, networkRunActor.type, id];
      const entry = await kv.get<string>(at);
      if (typeof entry.value !== "string") throw new Error(`run ${id} is not stored whole`);
      const record = JSON.parse(entry.value) as ActorRecord;
      const target: IndexTarget = { type: networkRunActor.type, id, tenant: record.tenant };
      const op = kv.atomic().check(entry);
      const indexes = record.indexes.map((encoded) => {
        const { index, key } = decodeIndex(encoded);
        if (index !== DRIVER_WAYBILL_INDEX) return encoded;
        const old = key.slice(0, -`|${id}`.length);
        op.delete([INDEX, index, key]).set([INDEX, index, old], target);
        return `${index}\u0000${old}`;
      });
      op.set(at, JSON.stringify({ ...record, v: 2, indexes }));
      if (!(await op.commit()).ok) throw new Error(`run ${id} moved while written`);
    }
    await kv.delete([PASS_DONE, reindexPass(networkRunActor)!]);
  } finally {
    kv.close();
  }
}
