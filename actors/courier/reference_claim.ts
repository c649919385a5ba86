/**
 * One external reference of one client (courier 4.2: `unique_external_reference`): the first
 * booking to claim it owns it; another answers 409 duplicate_order. A refused booking releases
 * its claim, so the reference stays free (Business API appendix 1).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export interface ReferenceClaim {
  readonly waybill: string | null;
  /**
   * The offer whose booking holds the claim, when it said (claims made before it did not): a
   * booking that stopped before its charge and whose prices expired can never complete, and
   * another booking of the reference may then take the claim over (src/courier/flows/booking/claim.ts).
   */
  readonly reference?: string | null;
  /** When it was claimed, when it said (claims made before it did not). */
  readonly claimed_at?: number | null;
}

export type ReferenceClaimCommand =
  | { kind: "claim"; waybill: string; reference?: string }
  | { kind: "release"; waybill: string }
  | { kind: "get" };

export type ReferenceClaimEvent =
  | { kind: "claimed"; waybill: string; reference?: string; at?: number }
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
  initial: { waybill: null, reference: null },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "claim":
        if (state.waybill === command.waybill) return accept([], (s) => s);
        if (state.waybill !== null) {
          return reject("duplicate_order", `external reference already booked: ${state.waybill}`, {
            waybill: state.waybill,
            ...(state.reference ? { reference: state.reference } : {}),
            // How long it has been held tells a booking on its way to its charge from one that
            // stopped (flows/booking/claim.ts claimHolderWithdrawn).
            ...(typeof state.claimed_at === "number" ? { claimed_at: state.claimed_at } : {}),
          });
        }
        return accept([{
          kind: "claimed",
          waybill: command.waybill,
          ...(command.reference === undefined ? {} : { reference: command.reference }),
          at: ctx.now,
        }], (s) => s);
      case "release":
        if (state.waybill !== command.waybill) return accept([], (s) => s);
        return accept([{ kind: "released" }], (s) => s);
      case "get":
        return accept([], (s) => s);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(_state, event) {
    return event.kind === "claimed"
      ? { waybill: event.waybill, reference: event.reference ?? null, claimed_at: event.at ?? null }
      : { waybill: null, reference: null, claimed_at: null };
  },
};
