/**
 * The real currency and country codes, for refusing well-shaped inventions such as `XYZ` or `ZZ`.
 *
 * Currencies: the alphabetic codes of ISO 4217 List One (current currencies, maintained by SIX
 * for ISO), as in Debian's iso-codes 4.15 data (`/usr/share/iso-codes/json/iso_4217.json`), with
 * the later amendments applied: XCG replaces ANG (2025), ZWG replaces ZWL (2024), EUR replaces
 * HRK (2023) and BGN (2026). Left out: fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW),
 * precious metals, bond-market units, XDR, XSU, XUA and the test and no-currency codes XTS, XXX;
 * none is money an invoice is written in.
 *
 * Countries: the 249 officially assigned alpha-2 codes of ISO 3166-1, from the same iso-codes
 * data (`iso_3166-1.json`). User-assigned (AA, QM-QZ, XA-XZ, ZZ) and reserved codes are refused.
 */

const CURRENCIES: ReadonlySet<string> = new Set(
  `
  AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD
  CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP
  GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD
  KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN
  NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP
  SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED
  VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG
`.trim().split(/\s+/),
);

const COUNTRIES: ReadonlySet<string> = new Set(
  `
  AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
  BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
  EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
  HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
  LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
  NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
  SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
  TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
`.trim().split(/\s+/),
);

/** An active ISO 4217 currency code, upper case: `BWP`, `ZAR`, `XOF`. */
export function isCurrencyCode(code: string): boolean {
  return CURRENCIES.has(code);
}

/** An officially assigned ISO 3166-1 alpha-2 country code, upper case: `BW`, `ZA`, `GB`. */
export function isCountryCode(code: string): boolean {
  return COUNTRIES.has(code);
}

/** All the currency codes, sorted. */
export const CURRENCY_CODES: readonly string[] = [...CURRENCIES];

/** All the country codes, sorted. */
export const COUNTRY_CODES: readonly string[] = [...COUNTRIES];
