/**
 * Bodies that pass their operation's schema where one sampled from the OpenAPI document does not
 * (rules the schema cannot state: money in the currency's decimals, one of two fields, a driver
 * that exists): the isolation probes must get past the request's check to reach the lookup.
 */
const MONEY = { amount: "10.00", currency: "BWP", reference: "probe-1" };

export const VALID_BODIES: Readonly<Record<string, unknown>> = {
  "POST /business/courier/clients/{client}/billing/top-up": MONEY,
  "POST /business/courier/clients/{client}/billing/payment": MONEY,
  "POST /business/courier/clients/{client}/billing/cod-remitted": {
    waybill: "WB2222222222223",
    evidence: "s3://slips/1.pdf",
  },
  "POST /business/courier/clients/{client}/billing/resolve-fx": {
    entry_reference: "probe-1",
    rate: "1.5",
    source: "Bank of Botswana",
  },
  "POST /business/network-runs/{run}/stops": { kind: "deliver", waybill: "WB2222222222223" },
  "POST /business/network-runs/{run}/driver": { driver_id: null },
};
