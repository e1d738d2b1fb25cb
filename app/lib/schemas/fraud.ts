// The back office's fraud forms: a block, lifting one, blocking a customer with what is known of
// them, the shared-key settings, a decision on a licence at risk, an order held for review.
import * as v from "valibot";
import { BLOCK_KINDS, type BlockKind } from "../fraud";

const text = () => v.optional(v.string(), "");
const reason = v.pipe(text(), v.trim(), v.nonEmpty("Please give a reason"), v.maxLength(200, "Keep the reason under 200 characters"));
const id = v.pipe(text(), v.regex(/^\d{1,15}$/, "Unknown record"), v.transform(Number));
/** An expiry date (yyyy-mm-dd, the end of that day in UTC), or none. */
const expiry = v.pipe(
  text(),
  v.trim(),
  v.check((value) => value === "" || /^\d{4}-\d{2}-\d{2}$/.test(value), "Choose a date, or leave it empty"),
  v.transform((value) => (value === "" ? null : Date.parse(`${value}T23:59:59.999Z`))),
  v.check((value) => value === null || Number.isFinite(value), "Choose a date, or leave it empty"),
);

export const blockSchema = v.object({
  intent: v.literal("block"),
  kind: v.picklist(BLOCK_KINDS as [BlockKind, ...BlockKind[]], "Choose what to block"),
  value: v.pipe(text(), v.trim(), v.nonEmpty("Enter what to block"), v.maxLength(256, "That is too long to be one")),
  reason,
  expires: expiry,
});

export const liftBlockSchema = v.object({ intent: v.literal("lift"), blockId: id });

/**
 * Blocking a customer from their page: the reason and expiry for every block it makes, and which of
 * what is known of them goes with their e-mail: each ticked box is a field `take-N` whose value is
 * "kind:value" (a PC, an address, another e-mail), read with `takenValues`.
 */
export const blockCustomerSchema = v.looseObject({ intent: v.literal("block-customer"), reason, expires: expiry });
export const takenValues = (input: Record<string, unknown>): string[] =>
  Object.entries(input)
    .filter(([name, value]) => name.startsWith("take-") && typeof value === "string")
    .slice(0, 100)
    .map(([, value]) => String(value));

const count = (label: string) =>
  v.pipe(text(), v.trim(), v.regex(/^\d{1,4}$/, `${label}: a whole number`), v.transform(Number), v.minValue(2, `${label}: at least 2`));
const optionalCount = (label: string) =>
  v.pipe(
    text(),
    v.trim(),
    v.check((value) => value === "" || /^\d{1,4}$/.test(value), `${label}: a whole number, or empty for never`),
    v.transform((value) => (value === "" ? null : Number(value))),
    v.check((value) => value === null || value >= 2, `${label}: at least 2`),
  );

export const fraudSettingsSchema = v.pipe(
  v.object({
    intent: v.literal("settings"),
    windowHours: v.pipe(
      text(),
      v.trim(),
      v.regex(/^\d{1,3}$/, "Window: a whole number of hours"),
      v.transform(Number),
      v.minValue(1, "Window: at least 1 hour"),
      v.maxValue(720, "Window: at most 720 hours"),
    ),
    flagAddresses: count("Addresses to flag"),
    flagCountries: count("Countries to flag"),
    suspendAddresses: optionalCount("Addresses to suspend"),
    suspendCountries: optionalCount("Countries to suspend"),
    holdRiskyOrders: v.pipe(
      text(),
      v.transform((value) => value === "on"),
    ),
  }),
  v.forward(
    v.check(
      (s) =>
        (s.suspendAddresses === null || s.suspendAddresses > s.flagAddresses) &&
        (s.suspendCountries === null || s.suspendCountries > s.flagCountries),
      "Automatic suspension must be above the flag's threshold",
    ),
    ["suspendAddresses"],
  ),
);
export type FraudSettingsInput = v.InferOutput<typeof fraudSettingsSchema>;

export const riskDecisionSchema = v.object({
  intent: v.picklist(["suspend", "ban", "dismiss"], "Unknown action"),
  flagId: id,
});
