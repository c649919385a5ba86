/**
 * The store conformance suite (store_conformance.ts) on Postgres, when DATABASE_URL is set: each
 * place a fresh schema, dropped after; skipped otherwise.
 */
import postgres from "postgres";
import { PgActorStore } from "../../src/runtime/pg_store.ts";
import type { ActorStore } from "../../src/runtime/store.ts";
import { storeConformance } from "./store_conformance.ts";

const url = Deno.env.get("DATABASE_URL");

storeConformance({
  name: "pg",
  ignore: url === undefined,
  place() {
    const schema = `actor_store_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const opened: ActorStore[] = [];
    return Promise.resolve({
      async open() {
        const store = await PgActorStore.open({ url: url!, schema });
        opened.push(store);
        return store;
      },
      async close() {
        for (const s of opened) await s.close();
        const sql = postgres(url!, { max: 1, onnotice: () => {} });
        try {
          await sql.unsafe(`drop schema if exists "${schema}" cascade`);
        } finally {
          await sql.end();
        }
      },
    });
  },
});
