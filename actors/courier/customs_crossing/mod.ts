/**
 * One customs crossing of one shipment (courier 2.10, 3.4, 4.5, 7): tenant = the courier's
 * business id, id = the crossing id (`xing_...`, deterministic per shipment and border stop, see
 * src/courier/flows/customs.ts). It keeps what customs decided and why: the append-only documents
 * supplied, every move with its reason, customs reference or evidence, the duties paid, and when
 * the vehicle left and the shipment exited and entered.
 *
 * Status values (the spec leaves them open): `presented` when opened (or once papers asked for
 * are supplied), `held`, `documents_requested`, `cleared`, `released`, `refused`. Rules: holds,
 * refusals and requests for documents need a reason; a clearance needs the customs reference; a
 * release needs evidence; duties need amount, currency, payer and evidence. Nothing moves a
 * refused crossing; a cleared one takes only its release and duties; a released one only its
 * clearance and duties; one both cleared and released only duties. Repeating a move recorded,
 * with the same facts, is a replay, whatever followed it: it changes nothing and answers the move
 * recorded, so whatever follows a move (the shipment's scan, the charge) is keyed by the move's
 * number and happens once. A hold or a request for documents answered again after the crossing
 * moved on completes nothing on the shipment (`standsAt`): it is past.
 *
 * A clearance's customs-administration fee, and duties the client pays, are due from the move's
 * own commit until the ledger confirms them booked (`charges_due`, booked by
 * src/courier/reactors/customs_charges.ts), and due again at the crossing's `charge` timer, so a
 * request that dies between the move and its charge loses nothing, whether or not the move is
 * ever sent again. Duties are the same duties when their amount, currency, payer and evidence
 * are (their optional reason aside).
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { withdrawnOnShipment } from "./border.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import type { CrossingCommand, CrossingEvent, CrossingReply, CrossingState } from "./types.ts";
import { crossingSummary } from "./views.ts";

export * from "./types.ts";
export {
  CROSSING_DOCUMENTS_MAX,
  CROSSING_DUTIES_MAX,
  CROSSING_MOVES_MAX,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  SUPPLY_DOCUMENTS_MAX,
} from "./limits.ts";
export {
  PRESENTATION_WITHDRAWN_OUTBOX,
  withdrawnOnShipment,
  type WithdrawnPresentation,
} from "./border.ts";
export { clearanceSourceEvent, dutySourceEvent } from "./charges.ts";
export { CUSTOMS_HOLDS } from "./delivery.ts";
export { standsAt } from "./transitions.ts";
export { crossingSummary } from "./views.ts";

export const customsCrossingActor: ActorDefinition<
  CrossingState,
  CrossingCommand,
  CrossingEvent,
  CrossingReply
> = {
  type: "customs_crossing",
  noun: "crossing",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? null : crossingSummary(s),
  // spec: courier 3.4, 3.2: a presentation withdrawn is withdrawn on the shipment, durably.
  outbox: withdrawnOnShipment,
};
