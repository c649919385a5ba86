/**
 * What the clock and the catalogue find wrong in a booking's fields (spec: business 2.1, 3.1, 7:
 * a past scheduled_at, a parcel_size or vehicle_type_id the catalogue lacks, an amount no zone's
 * currency holds exactly), named together: with the schema's own findings when the body fails
 * it too, so one 422 names every bad field rather than a second one after the first is fixed.
 */
import type { Deps } from "../../environment.ts";
import { type FieldError, invalidFields, Refused } from "../../runtime/actor.ts";
import { inexactInEveryCurrency, scheduleOf } from "../rules/booking.ts";
import type { Catalogue } from "../rules/catalogue.ts";
import { unknownDeclared } from "../rules/vehicle.ts";
import { catalogueOf } from "./fares.ts";

/** The fields these checks read, as sent: a field of the wrong kind is the schema's to name. */
interface Checked {
  readonly scheduled_at?: unknown;
  readonly parcel_size?: unknown;
  readonly vehicle_type_id?: unknown;
  readonly cod_amount?: unknown;
  readonly order_payload?: unknown;
}

function problemsOf(
  catalogue: Catalogue,
  now: number,
  r: Checked,
  goodsChecked: boolean,
): { problems: FieldError[]; at: number | null } {
  const sent = typeof r.scheduled_at === "string" ? r.scheduled_at : null;
  const schedule = scheduleOf(sent, now);
  const declared = {
    parcel_size: typeof r.parcel_size === "string" ? r.parcel_size : undefined,
    vehicle_type_id: Number.isInteger(r.vehicle_type_id) ? r.vehicle_type_id as number : undefined,
  };
  const amounts = {
    cod_amount: typeof r.cod_amount === "number" ? r.cod_amount : undefined,
    order_payload: isRecord(r.order_payload) ? r.order_payload : undefined,
  };
  const problems = [
    ...(schedule.ok ? [] : [{ path: "scheduled_at", message: schedule.message }]),
    ...(goodsChecked ? [] : unknownDeclared(catalogue, declared)),
    ...inexactInEveryCurrency(amounts, catalogue.zones.map((z) => z.currency)),
  ];
  return { problems, at: schedule.ok ? schedule.at : null };
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * When the booking is dispatched (null: now), or the request refused naming each field the clock
 * or the catalogue finds wrong. `goodsChecked`: a checkout's goods were checked when it was
 * opened, a batch stop's when its batch was planned.
 */
export async function scheduleOrRefuse(
  deps: Pick<Deps, "runtime" | "clock">,
  request: Checked,
  goodsChecked: boolean,
): Promise<number | null> {
  const catalogue = await catalogueOf(deps);
  const { problems, at } = problemsOf(catalogue, deps.clock.now(), request, goodsChecked);
  if (problems.length > 0) throw new Refused(invalidFields(problems));
  return at;
}

/**
 * The same checks on a body its schema refused (RouteSpec.alsoCheck): what they find in the
 * fields that are of the right kind, named beside the schema's findings. A booking naming a
 * checkout (`checkout_reference`) carries no goods of its own; a checkout's body (`goods`)
 * carries goods only, its schema dropping any other field.
 */
export async function problemsBesideTheSchema(
  deps: Pick<Deps, "runtime" | "clock">,
  sent: unknown,
  of: "booking" | "goods" = "booking",
): Promise<FieldError[]> {
  if (!isRecord(sent)) return [];
  const fields = of === "booking"
    ? sent
    : { parcel_size: sent.parcel_size, vehicle_type_id: sent.vehicle_type_id };
  const goodsChecked = of === "booking" && sent.checkout_reference !== undefined;
  const catalogue = await catalogueOf(deps);
  return problemsOf(catalogue, deps.clock.now(), fields, goodsChecked).problems;
}
