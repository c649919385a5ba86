/**
 * A shipment's life after booking (courier 1.4, 3.2): headline status, milestones with their own
 * deadline and owner, health in the order of 3.2, the next obligation, and per-piece custody.
 * Pure: instants are epoch milliseconds passed in; deadlines count working hours on the
 * calendar frozen with the service terms (working_hours.ts). One idea a file, in lifecycle/.
 */
export * from "./lifecycle/vocabulary.ts";
export * from "./lifecycle/steps.ts";
export * from "./lifecycle/milestones.ts";
export * from "./lifecycle/days.ts";
export * from "./lifecycle/health.ts";
export * from "./lifecycle/delivery_estimate.ts";
export * from "./lifecycle/scan_charges.ts";
