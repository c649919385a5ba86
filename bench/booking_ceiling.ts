/**
 * The booking bench's ceiling: routes of the same shape that book nothing, the most this load
 * generator and Hono on this machine carry, which bounds what any booking design can show here.
 */
import { Hono } from "hono";
import type { Target } from "./booking_load.ts";

export function ceilingTarget(): Target {
  const app = new Hono();
  let n = 0;
  app.post("/api/client/prices", async (c) => {
    await c.req.json();
    return c.json({ success: true, data: { prices_reference: `prc_${n++}` } });
  });
  app.post("/api/client/book", async (c) => {
    await c.req.json();
    return c.json({ success: true, data: { waybill: `WB${n++}` } }, 201);
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    keys: ["ck_ceiling"],
    close: () => server.shutdown(),
  };
}
