// Reseller panel forms (generate keys, add balance) and the back office's credit to a balance: one
// schema per form, checked in the browser and again on the server; each form posts an `intent`.
import * as v from "valibot";
import { coinSchema } from "../crypto-orders";

export const MIN_KEYS_PER_ORDER = 5;
export const MAX_KEYS_PER_ORDER = 100;
export const MAX_BALANCE_TOP_UP = 10_000;
export const KEY_TYPES = { monthly: "Monthly License", weekly: "Weekly License" } as const;
export type KeyType = keyof typeof KEY_TYPES;

const INVALID_QUANTITY = "Please enter a valid quantity";
const INVALID_AMOUNT = "Please enter a valid amount";
/** Below the minimum order the page titles the problem differently, so it is told apart by this message. */
export const MINIMUM_ORDER = `You must generate at least ${MIN_KEYS_PER_ORDER} keys per order`;

// A missing field reads as empty, so it gets the same message as a blank one.
const text = () => v.optional(v.string(), "");

const quantity = v.pipe(
  text(),
  v.trim(),
  v.nonEmpty(INVALID_QUANTITY),
  v.transform(Number),
  v.integer(INVALID_QUANTITY),
  v.minValue(1, INVALID_QUANTITY),
  v.minValue(MIN_KEYS_PER_ORDER, MINIMUM_ORDER),
  v.maxValue(MAX_KEYS_PER_ORDER, `You can generate at most ${MAX_KEYS_PER_ORDER} keys per order`),
);

/** An amount in dollars ("25", "25.50") as integer cents. */
const amountCents = v.pipe(
  text(),
  v.trim(),
  v.regex(/^\d+(\.\d{1,2})?$/, INVALID_AMOUNT),
  v.transform((dollars) => Math.round(Number(dollars) * 100)),
  v.minValue(1, INVALID_AMOUNT),
  v.maxValue(MAX_BALANCE_TOP_UP * 100, `Amounts can be at most $${MAX_BALANCE_TOP_UP}`),
);

export const generateKeysSchema = v.object({
  intent: v.literal("generate"),
  quantity,
  // Monthly unless the form says otherwise; an empty choice counts as no choice.
  keyType: v.pipe(
    text(),
    v.transform((value) => value || "monthly"),
    v.picklist(Object.keys(KEY_TYPES) as KeyType[], "Choose Monthly License or Weekly License"),
  ),
});

export const MIN_TOP_UP_CENTS = 1_000;

// A top-up is paid in crypto: at least $10, in a coin the shop takes.
export const addBalanceSchema = v.object({
  intent: v.literal("add-balance"),
  amount: v.pipe(amountCents, v.minValue(MIN_TOP_UP_CENTS, "The minimum top-up is $10.00")),
  coin: coinSchema,
});

// An admin's credit to a member's balance, from the member's page in the back office.
export const creditSchema = v.object({
  intent: v.literal("credit"),
  amount: amountCents,
  // One id per credit form the page shows (a new one after each credit): the same form sent twice credits once.
  request: v.pipe(v.optional(v.string(), ""), v.uuid("This form is out of date; reload the page")),
});

// A reseller extends a key they sold by its plan's term, from their balance (decision 090).
export const extendKeySchema = v.object({
  intent: v.literal("extend"),
  licenceId: v.pipe(text(), v.regex(/^\d{1,15}$/, "Unknown key"), v.transform(Number)),
  // One id per page load: the same extension sent twice is paid once.
  request: v.pipe(text(), v.uuid("This form is out of date; reload the page")),
});

export const resellSchema = v.variant("intent", [generateKeysSchema, addBalanceSchema, extendKeySchema], "Unknown request");

export type GenerateKeysInput = v.InferOutput<typeof generateKeysSchema>;
export type TopUpInput = v.InferOutput<typeof addBalanceSchema>;
export type CreditInput = v.InferOutput<typeof creditSchema>;

/** A key's price for a reseller: the list price less their discount, in whole cents. */
export function discounted(listCents: number, discountRate: number): number {
  return Math.round((listCents * (100 - discountRate)) / 100);
}
