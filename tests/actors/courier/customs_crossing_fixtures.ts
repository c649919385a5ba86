/** Fixtures shared by customs_crossing_test.ts and customs_crossing_charges_test.ts. */
import assert from "node:assert/strict";
import {
  type CrossingCommand,
  type CrossingOpening,
  type CrossingReply,
  customsCrossingActor,
  type MoveInput,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { ActorHarness } from "../../helpers/actor.ts";

export const T0 = Date.parse("2026-11-02T08:00:00Z");
export const OPENING: CrossingOpening = {
  id: "xing_1",
  waybill: "WB1",
  client_id: "cli_1",
  country: "BW",
  to_country: "ZA",
  border_post: "Tlokweng",
  run_id: "run_1",
  stop_id: "stop_1",
};

export function opened(opening: CrossingOpening = OPENING) {
  const h = new ActorHarness(customsCrossingActor, { now: T0 });
  h.must({ kind: "open", crossing: opening, by: "system" });
  return h;
}

export type Harness = ReturnType<typeof opened>;

export function move(m: Partial<MoveInput> & Pick<MoveInput, "action">): CrossingCommand {
  return { kind: "move", move: { by: "staff:usr_1", ...m } };
}

export const HOLD = move({ action: "hold", reason: "inspection" });
export const CLEAR = move({ action: "clear", customs_reference: "BW-CUS-77" });
export const RELEASE = move({ action: "release", evidence: "release-slip.pdf" });
export const DUTY: MoveInput = {
  action: "duties",
  amount: "125.50",
  currency: "bwp",
  payer: "Client",
  evidence: "receipt-9.pdf",
  by: "staff:usr_1",
};
export const DUTIES = move(DUTY);

export function moved(reply: CrossingReply | undefined) {
  assert.ok(reply?.kind === "moved");
  return reply;
}

export function supply(names: string[], note: string | null = null): CrossingCommand {
  return { kind: "supply", documents: names.map((name) => ({ name })), note, by: "agent" };
}
