/** Field schemas the courier document's routes share (courier 2, 4). */
import { z } from "../../../src/http/route.ts";
import { SETTLEMENT_MODES } from "../../../src/courier/rules/settlement.ts";

/** How a client's account settles (courier 2.5, 4.2). */
export const Settlement = z.enum(SETTLEMENT_MODES);
