// The shop's fraud rules as the browser needs them too: the kinds of block, their labels, the
// shared-key detection's defaults, the risk reasons an order can carry, and the reason a suspended
// or blocked licence answer gives the program (decisions 092 and 093).

export const BLOCK_KIND_LABEL = {
  email: "E-mail address",
  domain: "E-mail domain",
  hwid: "PC (hardware id)",
  ip: "IP address or range",
  country: "Country",
  discord: "Discord account",
} as const;
export type BlockKind = keyof typeof BLOCK_KIND_LABEL;
export const BLOCK_KINDS = Object.keys(BLOCK_KIND_LABEL) as BlockKind[];

/** Shared-key detection and order holds when staff have set nothing. */
export const FRAUD_DEFAULTS = {
  windowHours: 24,
  flagAddresses: 10,
  flagCountries: 5,
  suspendAddresses: null as number | null,
  suspendCountries: null as number | null,
  holdRiskyOrders: false,
};
export type FraudSettings = typeof FRAUD_DEFAULTS;

export const RISK_REASON_LABEL = {
  "blocked-email": "The buyer's e-mail address is blocked",
  "blocked-domain": "The buyer's e-mail domain is blocked",
  "blocked-ip": "The buyer paid from a blocked address",
  "blocked-country": "The buyer paid from a blocked country",
  "disposable-email": "The buyer's e-mail domain is a disposable-mail service",
  "country-mismatch": "The key is used from another country than the order's",
} as const;
export type RiskReason = keyof typeof RISK_REASON_LABEL;
/** Reasons that come from a block: such an order is always held, whatever the setting says. */
export const BLOCK_REASONS: readonly RiskReason[] = ["blocked-email", "blocked-domain", "blocked-ip", "blocked-country"];

/** What the signed answer tells the program (and its user), by why the licence stopped. */
export const ANSWER_REASON = {
  dispute: "The payment for this key is disputed: it is suspended until the dispute is settled.",
  sharing: "This key was used from too many places and is suspended. Contact support.",
  blockedPc: "This PC is blocked by the shop.",
  blockedNetwork: "Licence checks from your network are blocked by the shop.",
} as const;

export const DISPUTE_OUTCOME_LABEL = { open: "Open", won: "Won", lost: "Lost" } as const;
