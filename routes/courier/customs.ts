/**
 * Courier 4.5, customs: a shipment's crossings and their status, documents supplied
 * (customs:submit-documents; a driver carrying the shipment may supply them too), and the moves
 * customs makes (hold, request_documents and duties need runs:operate; clear, release and refuse
 * need customs:approve). The crossing actor decides; src/courier/flows/customs_moves.ts moves the
 * shipment, books the charges and raises the alerts that follow.
 */
import type { Context, MiddlewareHandler } from "hono";
import {
  CUSTOMS_ACTIONS,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  type CustomsAction,
  SUPPLY_DOCUMENTS_MAX,
} from "../../actors/courier/customs_crossing/mod.ts";
import { asShipment, type Shipment, shipmentActor } from "../../actors/courier/shipment/mod.ts";
import {
  crossingsOfShipment,
  getCrossing,
  supplyDocuments,
} from "../../src/courier/flows/customs.ts";
import { moveCrossing } from "../../src/courier/flows/customs_moves.ts";
import { assertDriverCarries } from "../../src/courier/flows/driver_access.ts";
import type { Scope } from "../../src/platform/rules/scopes.ts";
import { type Api, ok } from "../../src/http/app.ts";
import {
  business,
  businessCredential,
  businessRefusals,
  driver,
} from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { requireScope, setPrincipal } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, asApiError } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { BODY_TOO_LARGE, refusing } from "../../src/http/refusals.ts";
import { LATER_CHARGE_REFUSALS } from "../../src/courier/flows/later_charges.ts";
import { PlainText, Waybill } from "../../src/http/schemas.ts";
import { read } from "../../src/http/ask.ts";
import { boundedText } from "../../src/http/upload.ts";
import {
  crossingView,
  CustomsMovedAnswer,
  CustomsSuppliedAnswer,
  driverCrossingView,
  DriverCustomsSuppliedAnswer,
  moveView,
  ShipmentCustomsAnswer,
} from "./answers/customs.ts";
import { crossingIdsOf } from "../../src/courier/queries/customs.ts";

const tag = "Customs";
const view = [business({ scope: "shipments:view-own" }), courierPlatform];
const submit = [business({ scope: "customs:submit-documents" }), courierPlatform];
const asDriver = [driver, courierPlatform];
/** Crossings listed for one shipment (one per border stop; a handful at most). */
const CROSSINGS_PER_SHIPMENT_MAX = 50;

/** spec: courier 4.5, 5: customs:approve clears, releases and refuses; the rest is operations. */
const SCOPE_OF: Readonly<Record<CustomsAction, Scope>> = {
  hold: "runs:operate",
  request_documents: "runs:operate",
  duties: "runs:operate",
  clear: "customs:approve",
  release: "customs:approve",
  refuse: "customs:approve",
};

const Text = (max: number) => z.string().trim().max(max);

/** What supplying documents to a crossing can refuse (customs_crossing/supply.ts). */
const SUPPLY_REFUSALS = {
  validation_failed: "no document is named",
  crossing_closed: "the crossing is cleared or refused: no more documents",
  too_many_documents: "more documents than a supply or a crossing keeps",
  customs_moves_limit: "the crossing is full",
};
const CrossingParam = z.object({ crossing: z.string().trim().min(1).max(64) });

const SupplyBody = z.object({
  documents: z.array(z.object({
    name: Text(CUSTOMS_NAME_CHARS_MAX).min(1),
    reference: Text(CUSTOMS_NAME_CHARS_MAX).nullable().optional(),
  })).min(1).max(SUPPLY_DOCUMENTS_MAX),
  note: Text(CUSTOMS_TEXT_CHARS_MAX).nullable().optional(),
});

/**
 * CONTRACT "Customs": every field but `action` may be absent; which ones an action needs is the
 * crossing's rule (courier 2.10, 7), answered 422 with its own code (reason_required,
 * customs_reference_required, evidence_required, duties_fields_required).
 */
const MoveBody = z.object({
  action: z.enum(CUSTOMS_ACTIONS),
  // spec: courier 2.6 rule 1: a duty's reason and evidence, and the customs reference (evidence
  // of the clearance's charge), are kept by the client's ledger (PlainText).
  reason: PlainText(CUSTOMS_TEXT_CHARS_MAX, { lines: true }).nullable().optional(),
  customs_reference: PlainText(CUSTOMS_NAME_CHARS_MAX).nullable().optional(),
  evidence: PlainText(CUSTOMS_TEXT_CHARS_MAX).nullable().optional(),
  amount: z.union([z.string().trim().max(32), z.number()]).nullable().optional()
    .openapi({ description: "Duties: a decimal amount in `currency`", example: "125.50" }),
  currency: Text(8).nullable().optional(),
  payer: Text(CUSTOMS_NAME_CHARS_MAX).nullable().optional()
    .openapi({
      description: "Duties: who pays them. Only `client` duties are booked on the client's " +
        "account (recoverable, apart from revenue); others are recorded on the crossing only",
      example: "client",
    }),
});

/**
 * The business credential, checked for the scope the body's action needs (courier 5): read
 * before validation, leniently; a body that names no known action is checked for runs:operate
 * and then refused by validation.
 */
const moverGuard: MiddlewareHandler<AppEnv> = refusing({
  ...businessRefusals({
    anyScope: ["runs:operate", "customs:approve"],
  }),
  scope_denied: "the credential lacks the scope of the action: `customs:approve` to clear, " +
    "release or refuse, `runs:operate` for the others",
  ...BODY_TOO_LARGE,
}, async (c, next) => {
  // Within the request cap (boundedText): a body past it is refused 413 here, before any read.
  const text = await boundedText(c);
  let action: unknown;
  try {
    action = (JSON.parse(text) as { action?: unknown })?.action;
  } catch {
    action = undefined;
  }
  const scope = typeof action === "string" && Object.hasOwn(SCOPE_OF, action)
    ? SCOPE_OF[action as CustomsAction]
    : "runs:operate";
  const key = c.req.header("X-Business-API-Key") ?? "";
  setPrincipal(c, await businessCredential(c, key, { scope }));
  await next();
});

async function crossingsOf(c: Context<AppEnv>, tenant: string, shipment: Shipment) {
  const env = c.get("env");
  const waybill = shipment.waybill;
  const ids = await crossingIdsOf(env.db, tenant, waybill, CROSSINGS_PER_SHIPMENT_MAX);
  return await crossingsOfShipment(env.runtime, tenant, shipment, ids);
}

export function customsRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/shipments/{reference}/customs",
    summary: "A shipment's customs crossings (`crossings[]`): status, documents supplied, every " +
      "move with its reason, customs reference or evidence, duties, and the border times",
    tag,
    security: "business",
    middleware: view,
    params: z.object({ reference: Waybill }),
    response: ShipmentCustomsAnswer,
  }, async (c, { params }) => {
    const { tenant } = businessCall(c);
    // Another courier's shipment does not exist for this one (404).
    const shipment = asShipment(
      await read(c, shipmentActor, tenant, params.reference, { kind: "get" }),
    );
    const crossings = await crossingsOf(c, tenant, shipment);
    return ok(c, { waybill: shipment.waybill, crossings: crossings.map(crossingView) });
  });

  define(api, {
    method: "post",
    path: "/business/customs/{crossing}/supply",
    summary: "Supply customs documents (append-only). Papers supplied while customs holds the " +
      "shipment or asked for them put it back with customs (`documents_supplied`)",
    tag,
    security: "business",
    middleware: submit,
    params: CrossingParam,
    body: SupplyBody,
    response: CustomsSuppliedAnswer,
    refusals: SUPPLY_REFUSALS,
  }, async (c, { params, body }) => {
    const { env, tenant, by } = businessCall(c);
    const r = await supplyDocuments(env.runtime, tenant, params.crossing, {
      documents: body.documents.map((d) => ({ name: d.name, reference: d.reference ?? null })),
      note: body.note ?? null,
      by,
    }, env.requestId);
    return ok(c, { ...crossingView(r.crossing), supply: r.supply.n, replayed: r.replayed });
  });

  define(api, {
    method: "post",
    path: "/business/customs/{crossing}/move",
    summary: "A customs move: hold, refuse and request_documents need a `reason`; a hold " +
      "leaves the shipment waiting on customs, request_documents also opens its " +
      "customs_documents milestone for the courier and raises documents_missing; clear needs " +
      "the `customs_reference` and books one customs-administration charge; release needs " +
      "`evidence`; duties need `amount`, `currency`, `payer` and `evidence` and, paid by the " +
      "client, book a recoverable entry apart from revenue. Clear, release and refuse need " +
      "customs:approve; the others runs:operate. Repeating a move with the same facts changes " +
      "nothing (`replayed: true`)",
    tag,
    security: "business",
    middleware: [moverGuard, courierPlatform],
    params: CrossingParam,
    body: MoveBody,
    response: CustomsMovedAnswer,
    refusals: {
      validation_failed: "hold, refusal and document request need a reason; clearance the " +
        "customs reference; release evidence; duties amount, currency, payer and evidence",
      invalid_currency: "duties: not a currency code",
      invalid_amount: "duties: not an amount in the currency, or not above zero",
      crossing_closed: "the crossing's status allows no such move (refused: nothing more; " +
        "cleared and released: only duties)",
      customs_moves_limit: "the crossing keeps no more moves or duties",
      delivery_under_way: "hold, refusal, document request: runs kept recording the shipment's " +
        "delivery or transfer while it was tried; send it again",
      ...LATER_CHARGE_REFUSALS,
    },
  }, async (c, { params, body }) => {
    const { env, principal, tenant, by } = businessCall(c);
    requireScope(principal, SCOPE_OF[body.action]);
    const r = await moveCrossing(env.runtime, tenant, params.crossing, {
      action: body.action,
      reason: body.reason ?? null,
      customs_reference: body.customs_reference ?? null,
      evidence: body.evidence ?? null,
      amount: body.amount ?? null,
      currency: body.currency ?? null,
      payer: body.payer ?? null,
      by,
    }, env.requestId);
    return ok(c, {
      ...crossingView(r.crossing),
      move: moveView(r.move),
      replayed: r.replayed,
      charge_reference: r.charge_reference,
    });
  });

  define(api, {
    method: "post",
    path: "/driver/customs/{crossing}/supply",
    summary: "The driver supplies customs documents for a shipment on one of their runs " +
      "(another driver's crossing answers 404)",
    tag,
    security: "driver",
    middleware: asDriver,
    params: CrossingParam,
    body: SupplyBody,
    response: DriverCustomsSuppliedAnswer,
    refusals: {
      ...SUPPLY_REFUSALS,
      not_found: "the crossing's shipment is on none of the driver's runs",
    },
  }, async (c, { params, body }) => {
    const { env, principal, tenant, by } = businessCall(c);
    const crossing = await getCrossing(env.runtime, tenant, params.crossing);
    // spec: courier 4.5: limited to the driver's runs. A crossing the driver does not carry
    // answers as one that does not exist: its waybill is not the driver's to learn.
    await assertDriverCarries(env, principal, crossing.waybill).catch((e) => {
      if (asApiError(e)?.code === "not_found") {
        throw new ApiError("not_found", "customs crossing not found");
      }
      throw e;
    });
    const r = await supplyDocuments(env.runtime, tenant, params.crossing, {
      documents: body.documents.map((d) => ({ name: d.name, reference: d.reference ?? null })),
      note: body.note ?? null,
      by,
    }, env.requestId);
    return ok(c, { ...driverCrossingView(r.crossing), supply: r.supply.n, replayed: r.replayed });
  });
}
