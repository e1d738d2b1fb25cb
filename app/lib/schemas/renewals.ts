// Renewal forms (decisions 090 and 091): pay for a licence's plan (or a longer one) by card, in
// crypto or from the balance; turn auto-renewal and the reminders on or off; a reseller extends a
// key they sold (its form is the reseller panel's). One schema per form, checked in the browser and again on the server.
import * as v from "valibot";
import { coinSchema } from "../crypto-orders";
import { LICENCE_PLANS } from "../plans";

const text = () => v.optional(v.string(), "");
const plan = v.picklist(LICENCE_PLANS, "Choose a plan");
// One id per form the page shows: the same payment sent twice is taken once.
const request = v.pipe(text(), v.uuid("This form is out of date; reload the page"));

export const renewByCardSchema = v.object({ intent: v.literal("card"), plan });
export const renewByCryptoSchema = v.object({ intent: v.literal("crypto"), plan, coin: coinSchema });
export const renewFromBalanceSchema = v.object({ intent: v.literal("balance"), plan, request });
export const autoRenewSchema = v.object({
  intent: v.literal("auto-renew"),
  on: v.pipe(
    text(),
    v.picklist(["on", "off"], "Choose on or off"),
    v.transform((value) => value === "on"),
  ),
});

export const renewSchema = v.variant(
  "intent",
  [renewByCardSchema, renewByCryptoSchema, renewFromBalanceSchema, autoRenewSchema],
  "Unknown request",
);

/** The Security page's switch for renewal reminders. */
export const remindersSchema = v.object({
  intent: v.literal("renewal-reminders"),
  on: v.pipe(
    text(),
    v.picklist(["on", "off"], "Choose on or off"),
    v.transform((value) => value === "on"),
  ),
});
