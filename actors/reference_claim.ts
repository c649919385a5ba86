/**
 * One external reference of one client (courier 4.2: `unique_external_reference`): the first
 * booking to claim it owns it; another answers 409 duplicate_order. A refused booking releases
 * its claim, so the reference stays free (Business API appendix 1).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../src/runtime/actor.ts";

export interface ReferenceClaim {
  readonly waybill: string | null;
}

export type ReferenceClaimCommand =
  | { kind: "claim"; waybill: string }
  | { kind: "release"; waybill: string };

export type ReferenceClaimEvent =
  | { kind: "claimed"; waybill: string }
  | { kind: "released" };

export function claimId(clientId: string, externalReference: string): string {
  return `${clientId}:${externalReference}`;
}

export const referenceClaimActor: ActorDefinition<
  ReferenceClaim,
  ReferenceClaimCommand,
  ReferenceClaimEvent,
  ReferenceClaim
> = {
  type: "reference_claim",
  version: 1,
  initial: { waybill: null },
  decide(state, command) {
    switch (command.kind) {
      case "claim":
        if (state.waybill === command.waybill) return accept([], (s) => s);
        if (state.waybill !== null) {
          return reject("duplicate_order", `external reference already booked: ${state.waybill}`, {
            waybill: state.waybill,
          });
        }
        return accept([{ kind: "claimed", waybill: command.waybill }], (s) => s);
      case "release":
        if (state.waybill !== command.waybill) return accept([], (s) => s);
        return accept([{ kind: "released" }], (s) => s);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(_state, event) {
    return { waybill: event.kind === "claimed" ? event.waybill : null };
  },
};
