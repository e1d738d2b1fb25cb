// The affiliate programme's forms: a member's application, withdrawals and payout requests in the
// hub, and staff decisions in the back office. Checked in the browser and again on the server.
import * as v from "valibot";
import { AFFILIATE_STATES, DEFAULT_COMMISSION_RATE, DEFAULT_DISCOUNT_RATE, MIN_PAYOUT_CENTS } from "../affiliates";

const text = () => v.optional(v.string(), "");
const INVALID_CODE = "Use 3 to 24 letters, digits, - or _";

/** An affiliate code as typed: letters, digits, - and _ (compared whatever its case). */
export const affiliateCodeSchema = v.pipe(text(), v.trim(), v.regex(/^[A-Za-z0-9_-]{3,24}$/, INVALID_CODE));

const sentence = (field: string, min: number, max: number) =>
  v.pipe(
    text(),
    v.trim(),
    v.minLength(min, `Please tell us your ${field} (at least ${min} characters)`),
    v.maxLength(max, `Keep your ${field} under ${max} characters`),
  );

export const applySchema = v.object({
  intent: v.literal("apply"),
  code: affiliateCodeSchema,
  channel: sentence("channel", 3, 200),
  audience: sentence("audience", 2, 200),
  pitch: sentence("few words", 10, 1000),
});

// One id per form the page shows: the same form sent twice moves the money once.
const request = v.pipe(text(), v.uuid("This form is out of date; reload the page"));

export const withdrawSchema = v.object({ intent: v.literal("withdraw"), request });

export const payoutSchema = v.object({
  intent: v.literal("payout"),
  request,
  amount: v.pipe(
    text(),
    v.trim(),
    v.regex(/^\d+(\.\d{1,2})?$/, "Please enter a valid amount"),
    v.transform((dollars) => Math.round(Number(dollars) * 100)),
    v.minValue(MIN_PAYOUT_CENTS, `The minimum payout is $${(MIN_PAYOUT_CENTS / 100).toFixed(2)}`),
    v.maxValue(100_000_000, "Please enter a valid amount"),
  ),
  address: v.pipe(text(), v.trim(), v.regex(/^[A-Za-z0-9]{26,90}$/, "Enter a BTC or LTC address")),
});

export const hubAffiliateSchema = v.variant("intent", [applySchema, withdrawSchema, payoutSchema], "Unknown request");
export type ApplyInput = v.InferOutput<typeof applySchema>;

const rate = (fallback: number) =>
  v.pipe(
    text(),
    v.trim(),
    v.transform((value) => (value === "" ? fallback : Number(value))),
    v.integer("Use a whole percentage from 0 to 100"),
    v.minValue(0, "Use a whole percentage from 0 to 100"),
    v.maxValue(100, "Use a whole percentage from 0 to 100"),
  );

const affiliate = v.pipe(text(), v.uuid("Unknown affiliate"));
// The state the member of staff saw: the decision is taken only if it is still that (decision 083).
const from = v.picklist(AFFILIATE_STATES, "Reload the page and try again");

export const approveSchema = v.object({
  intent: v.literal("approve"),
  affiliate,
  from,
  commissionRate: rate(DEFAULT_COMMISSION_RATE),
  discountRate: rate(DEFAULT_DISCOUNT_RATE),
  // The Shopify discount code the card checkout applies; empty: the affiliate's own code.
  shopifyDiscountCode: v.pipe(text(), v.trim(), v.regex(/^[A-Za-z0-9_-]{0,64}$/, "Letters, digits, - and _ only")),
});

export const staffAffiliateSchema = v.variant(
  "intent",
  [
    approveSchema,
    v.object({ intent: v.literal("decline"), affiliate, from }),
    v.object({ intent: v.literal("pause"), affiliate, from }),
    v.object({ intent: v.literal("resume"), affiliate, from }),
    v.object({
      intent: v.literal("mark-paid"),
      payout: v.pipe(text(), v.regex(/^\d{1,15}$/, "Unknown payout"), v.transform(Number)),
      transaction: v.pipe(text(), v.trim(), v.regex(/^[A-Fa-f0-9]{64}$/, "Enter the payout's 64-character transaction id")),
    }),
  ],
  "Unknown request",
);
export type StaffAffiliateInput = v.InferOutput<typeof staffAffiliateSchema>;
