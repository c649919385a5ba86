/** What the sample shows outside its actor. */
import type { LabSample, LabSampleReply } from "./types.ts";

/** What the bus and the `snapshots` table carry: the sample without its readings and ticks. */
export function labSummaryOf(s: LabSample) {
  const last = s.readings.at(-1);
  return {
    waybill: s.waybill,
    courier_id: s.courier_id,
    sample_type: s.profile.sample_type,
    laboratory: s.profile.laboratory,
    cold_chain: s.cold_chain,
    deadline_at: s.profile.deadline_at,
    seal: s.seal,
    readings_total: s.readings_total,
    out_of_range_total: s.out_of_range_total,
    lowest_tenths: s.lowest_tenths,
    highest_tenths: s.highest_tenths,
    last_reading: last
      ? { time: last.time, celsius_tenths: last.celsius_tenths, in_range: last.in_range }
      : null,
    ticks_total: s.ticks_total,
    open_blocks: s.blocks.map((b) => b.reason),
    decisions_total: s.decisions_total,
    rejected: s.rejected,
  };
}

/** The sample a `get`-like reply carries; a verdict there is a programming error. */
export function asLabSample(reply: LabSampleReply): LabSample {
  if (!("waybill" in reply)) throw new Error("expected the lab sample in the reply");
  return reply;
}
