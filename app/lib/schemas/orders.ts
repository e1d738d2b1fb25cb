// The back office's order forms and filters: the list's search (GET, shareable), the order page's
// actions, a manual order, and the key export's filters. Checked in the browser and on the server.
import * as v from "valibot";
import { isVariantGid } from "../catalogue";
import { seenSchema } from "../crypto-orders";
import { ORDER_SOURCES, ORDER_STATES } from "../orders";

const text = () => v.optional(v.string(), "");

const day = (name: string) =>
  v.pipe(
    text(),
    v.trim(),
    v.check(
      (value) => value === "" || (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))),
      `${name} must be a date (yyyy-mm-dd)`,
    ),
  );

/** The order list's filters, as a shareable URL carries them. Dates are whole UTC days. */
export const orderListSchema = v.pipe(
  v.object({
    q: v.pipe(text(), v.trim(), v.maxLength(200, "Search for at most 200 characters")),
    source: v.optional(v.union([v.literal(""), v.picklist(ORDER_SOURCES)], "Unknown source"), ""),
    state: v.optional(v.union([v.literal(""), v.picklist(ORDER_STATES)], "Unknown state"), ""),
    from: day("From"),
    to: day("To"),
    cursor: v.pipe(text(), v.regex(/^[A-Za-z0-9_-]{0,400}$/, "This link to a page of orders is broken")),
  }),
  v.forward(
    v.check((f) => f.from === "" || f.to === "" || f.from <= f.to, "From must not be after To"),
    ["to"],
  ),
);
export type OrderListInput = v.InferOutput<typeof orderListSchema>;

const reason = v.pipe(text(), v.trim(), v.nonEmpty("Please give a reason"), v.maxLength(200, "Keep the reason under 200 characters"));
/** The buyer's address as staff type it: where a key goes. */
const buyerEmail = v.pipe(
  text(),
  v.trim(),
  v.toLowerCase(),
  v.nonEmpty("Please enter the buyer's e-mail"),
  v.email("Please enter a valid e-mail"),
  v.maxLength(254),
);
const keyRef = v.pipe(text(), v.regex(/^[cr][0-9A-Za-z-]{1,40}$/, "Unknown key"));

/** The order page's actions; each names its intent (and the capability it needs is checked per intent). */
export const orderActionSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("reveal"), key: keyRef }),
    v.object({ intent: v.literal("resend") }),
    // A paid order held for review: its keys go out.
    v.object({ intent: v.literal("release") }),
    v.object({
      intent: v.literal("correct-email"),
      email: buyerEmail,
    }),
    v.object({ intent: v.literal("revoke"), key: keyRef, reason }),
    v.object({ intent: v.literal("replace"), key: keyRef, reason }),
    v.object({
      intent: v.literal("cancel"),
      reason: v.pipe(text(), v.trim(), v.maxLength(200, "Keep the reason under 200 characters")),
      seen: seenSchema,
    }),
  ],
  "Unknown request",
);

/** Admin: a key handed out by hand, from stock, with the reason it was given. */
export const manualOrderSchema = v.object({
  intent: v.literal("manual", "Unknown request"),
  email: buyerEmail,
  variantId: v.pipe(text(), v.trim(), v.check(isVariantGid, "Please choose a variant")),
  reason,
});
export type ManualOrderInput = v.InferOutput<typeof manualOrderSchema>;

export const KEY_EXPORT_STATES = ["available", "sold", "revoked"] as const;

/** The key export's filters. */
export const keyExportSchema = v.pipe(
  v.object({
    variant: v.pipe(
      text(),
      v.trim(),
      v.check((value) => value === "" || isVariantGid(value), "Unknown variant"),
    ),
    state: v.optional(v.union([v.literal(""), v.picklist(KEY_EXPORT_STATES)], "State must be available, sold or revoked"), ""),
    from: day("From"),
    to: day("To"),
  }),
  v.forward(
    v.check((f) => f.from === "" || f.to === "" || f.from <= f.to, "From must not be after To"),
    ["to"],
  ),
);
export type KeyExportInput = v.InferOutput<typeof keyExportSchema>;

/** A yyyy-mm-dd day as the first millisecond of that UTC day; the day after, for an end bound. */
export function dayStart(value: string, plusDays = 0): number | undefined {
  return value === "" ? undefined : Date.parse(`${value}T00:00:00Z`) + plusDays * 86_400_000;
}
