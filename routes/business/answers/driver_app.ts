/** What the driver app's endpoints answer (CONTRACT "Driver app"; Business API 1.2). */
import type { PoolDriver } from "../../../actors/business/pool_driver.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";
import { iso } from "../../../src/domain/iso.ts";

export const PoolDriverRegisteredAnswer = z.object({
  id: z.string(),
  token: z.string().openapi({
    description: "The driver's bearer token (`Authorization: Bearer`). Shown only in this answer",
  }),
}).openapi("PoolDriverRegistered");

export const PoolDriverAnswer = z.object({
  id: z.string(),
  name: z.string(),
  phone: z.string(),
  vehicle_type_id: z.number().int(),
  zone_id: z.string(),
  plate: z.string().nullable(),
  color: z.string().nullable(),
  online: z.boolean().openapi({ description: "On shift: offered trips" }),
  shift_changed_at: UtcInstant.nullable(),
}).openapi("PoolDriver");

export function poolDriverView(d: PoolDriver): z.infer<typeof PoolDriverAnswer> {
  return {
    id: d.id,
    name: d.name,
    phone: d.phone,
    vehicle_type_id: d.vehicle_type_id,
    zone_id: d.zone_id,
    plate: d.plate,
    color: d.color,
    online: d.online,
    shift_changed_at: iso(d.shift_changed_at),
  };
}

export const PositionsAnswer = z.object({
  accepted: z.number().int().openapi({ description: "Positions taken from this request" }),
  latest_at: UtcInstant.openapi({ description: "When the driver's newest position was observed" }),
}).openapi("DriverPositionsTaken");
