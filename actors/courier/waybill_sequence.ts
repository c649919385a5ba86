/**
 * The waybill numbers (courier 2.3: the waybill identifies a shipment): one sequence for the whole
 * service, handed out in blocks. Each instance numbers offers from a block in memory, so no two
 * offers ever share a number, and a block an instance never used up is a gap, never a reuse.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export const WAYBILL_SEQUENCE_ID = "waybills";
/** Numbers in one block at most. */
export const WAYBILL_BLOCK_MAX = 10_000;

export interface WaybillSequence {
  /** The first number not yet handed out (numbers start at 1). */
  readonly next: number;
}

/** `at_least`: the block starts there or later (an environment's own range, see waybills.ts). */
export type WaybillSequenceCommand = { kind: "reserve"; count: number; at_least?: number };

export type WaybillSequenceEvent = { kind: "reserved"; from: number; count: number };

/** The block reserved: numbers `from` to `to - 1`. */
export interface WaybillBlock {
  readonly from: number;
  readonly to: number;
}

export const waybillSequenceActor: ActorDefinition<
  WaybillSequence,
  WaybillSequenceCommand,
  WaybillSequenceEvent,
  WaybillBlock
> = {
  type: "waybill_sequence",
  version: 1,
  initial: { next: 1 },
  decide(state, command) {
    switch (command.kind) {
      case "reserve": {
        const { count } = command;
        if (!Number.isSafeInteger(count) || count < 1 || count > WAYBILL_BLOCK_MAX) {
          return reject("invalid_block", `a block holds 1 to ${WAYBILL_BLOCK_MAX}: ${count}`);
        }
        const from = Math.max(state.next, command.at_least ?? 1);
        if (!Number.isSafeInteger(from) || from + count > Number.MAX_SAFE_INTEGER) {
          return reject("sequence_exhausted", `waybill numbers exhausted at ${from}`);
        }
        return accept(
          [{ kind: "reserved", from, count }],
          (s) => ({ from: s.next - count, to: s.next }),
        );
      }
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    return { next: Math.max(state.next, event.from + event.count) };
  },
  // The blocks are the state; nobody downstream reads them.
  publishEvents: false,
};
