/** The store conformance suite (store_conformance.ts) on Deno KV: a file each place, shared. */
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import type { ActorStore } from "../../src/runtime/store.ts";
import { storeConformance } from "./store_conformance.ts";

storeConformance({
  name: "kv",
  async place() {
    const dir = await Deno.makeTempDir();
    const opened: ActorStore[] = [];
    return {
      async open() {
        const store = await KvActorStore.open(`${dir}/store.kv`);
        opened.push(store);
        return store;
      },
      async close() {
        for (const s of opened) await s.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
});
