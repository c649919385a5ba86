/**
 * One laboratory sample (courier 2.10, 3.4, 7): its profile, checklist ticks, seal and an
 * append-only series of temperature readings. Tenant = the courier business id, id = the waybill.
 *
 * Rules:
 * - A profile comes first. It may be replaced until the first tick, reading or block, until its
 *   deadline passes, or until a run hands the sample to the laboratory; after that it is locked (the same profile sent again is a harmless
 *   retry). Setting `min_temp_c` or `max_temp_c` makes the sample cold chain: its charge is due
 *   from that commit until the ledger confirms it (charges.ts; booked by src/courier/flows/lab.ts
 *   and src/courier/reactors/lab_charges.ts).
 * - A reading needs value, unit (`C` or `F`), source, device and time; it is stored as given plus
 *   `celsius_tenths`, the value in tenths of a degree Celsius converted with exact integer
 *   arithmetic and rounded once, half away from zero. Range checks compare the exact value
 *   (8.04 °C is above a bound of 8 °C, though it shows as 8.0). Readings are never edited or
 *   deleted; the same reading sent twice (device, time, value, unit) is kept once, however many
 *   came between (a logger sending its whole log again), up to LAB_READINGS_MAX readings.
 * - The seal is a tick of the item `seal`: `ok: false`, or a `seal_id` other than the profile's,
 *   marks it broken (for good); `ok: true` marks it intact while it is not broken.
 * - Blocks (3.4): a late sample (a tick, reading or handover check after `deadline_at`, or a
 *   reading taken after it), a reading outside [min, max] and a broken seal each open a block on
 *   the laboratory handover while the sample is in the courier's care. Only `approve`, recorded by someone with runs:override, clears them:
 *   `accept` clears the blocks open now (a later exception blocks again), `reject` refuses the
 *   handover for good.
 *
 * Bounded state: the last LAB_READINGS_IN_STATE_MAX readings with `readings_total`, a digest of
 * every reading (at most LAB_READINGS_MAX, so a reading sent again however old is known), the
 * latest tick per item, the open blocks (one per reason) and the last decisions; the event log
 * keeps all.
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { LAB_SAMPLE_STATE_BYTES_MAX } from "../../../src/limits.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import { load } from "./load.ts";
import type { LabSampleCommand, LabSampleEvent, LabSampleReply, LabSampleState } from "./types.ts";
import { labSummaryOf } from "./views.ts";

export * from "./types.ts";
export {
  LAB_BY_CHARS_MAX,
  LAB_DECISION_NOTE_CHARS_MAX,
  LAB_DECISIONS_IN_STATE_MAX,
  LAB_NAME_CHARS_MAX,
  LAB_NOTE_CHARS_MAX,
  LAB_READINGS_IN_STATE_MAX,
  LAB_TICK_ITEMS_MAX,
  READING_AHEAD_MS_MAX,
  SEAL_ITEM,
  TEMPERATURE_ABS_MAX,
} from "./limits.ts";
export { celsiusTenths, formatTenths, isWholeTenths, withinRange } from "./temperatures.ts";
export { handoverVerdict } from "./lateness.ts";
export { chargesDueOf, coldChainSourceEvent } from "./charges.ts";
export { asLabSample, labSummaryOf } from "./views.ts";

export const labSampleActor: ActorDefinition<
  LabSampleState,
  LabSampleCommand,
  LabSampleEvent,
  LabSampleReply
> = {
  type: "lab_sample",
  version: 2,
  initial: null,
  decide,
  evolve,
  load,
  // The digests of up to LAB_READINGS_MAX readings outgrow one store value.
  stateBytesMax: LAB_SAMPLE_STATE_BYTES_MAX,
  project: (s) => s === null ? undefined : labSummaryOf(s),
};
