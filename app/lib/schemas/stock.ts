// The Manage Codes page's stock forms (add codes, delete a code, a variant's low-stock threshold)
// and its list filters. The forms' schemas run in the browser before sending and again on the
// server; each form posts an `intent`.
import * as v from "valibot";
import { formatCount } from "../format";
import { isPeriod, type Period } from "../periods";

export const MAX_CODES_PER_SUBMISSION = 1000;

const PICK_AND_PASTE = "Please select a variant and enter codes";
const UNKNOWN_CODE = "Unknown code";

// A missing field reads as empty, so it gets the same message as a blank one.
const text = () => v.optional(v.string(), "");

export const addCodesSchema = v.object({
  intent: v.literal("add"),
  variantId: v.pipe(text(), v.trim(), v.nonEmpty(PICK_AND_PASTE)),
  // Left as typed: stock splits it into lines and trims each one.
  codes: v.pipe(
    text(),
    v.check((codes) => codes.trim() !== "", PICK_AND_PASTE),
  ),
});

export const deleteCodeSchema = v.object({
  intent: v.literal("delete"),
  // Digits only (no sign, fraction or exponent); fifteen of them always make a safe integer.
  id: v.pipe(text(), v.regex(/^\d{1,15}$/, UNKNOWN_CODE), v.transform(Number)),
});

export const MAX_STOCK_THRESHOLD = 100_000;
const THRESHOLD_RULE = `Enter a whole number from 0 to ${formatCount(MAX_STOCK_THRESHOLD)}`;
const variantField = () => v.pipe(text(), v.trim(), v.nonEmpty("Choose a variant"), v.maxLength(300, "Unknown variant"));

/** A variant's low-stock threshold: admins are warned when its available codes drop to it. */
export const stockThresholdSchema = v.object({
  intent: v.literal("threshold"),
  variantId: variantField(),
  // Digits only (no sign, fraction or exponent), then the range.
  threshold: v.pipe(
    text(),
    v.trim(),
    v.regex(/^\d{1,7}$/, THRESHOLD_RULE),
    v.transform(Number),
    v.maxValue(MAX_STOCK_THRESHOLD, THRESHOLD_RULE),
  ),
});

export const clearThresholdSchema = v.object({ intent: v.literal("clear-threshold"), variantId: variantField() });

/** A bulk change's token, as its preview handed it out (decision 104). */
export const bulkToken = () => v.pipe(text(), v.trim(), v.regex(/^[0-9a-f-]{36}$/, "Preview the change first"));

/** Deleting unsold codes in bulk: a variant's, or only the listed ones among them; previewed first. */
export const bulkDeletePreviewSchema = v.object({
  intent: v.literal("bulk-preview"),
  variantId: variantField(),
  // Empty: every unsold code of the variant. Split into lines on the server.
  codes: text(),
});

export const stockFormSchema = v.variant(
  "intent",
  [
    addCodesSchema,
    deleteCodeSchema,
    stockThresholdSchema,
    clearThresholdSchema,
    bulkDeletePreviewSchema,
    v.object({ intent: v.picklist(["bulk-delete", "bulk-undo"]), token: bulkToken() }),
  ],
  "Unknown request",
);

/**
 * The lists' filters as the page's URL carries them: a variant for each list, and the sold list's
 * period, measured in the admin's time zone (minutes, as Date#getTimezoneOffset gives them).
 * Anything unreadable means no filter (and UTC).
 */
export const codeFiltersSchema = v.object({
  available: text(),
  sold: text(),
  period: v.fallback(v.custom<Period>(isPeriod), "all"),
  tz: v.fallback(v.pipe(v.string(), v.transform(Number), v.finite(), v.minValue(-14 * 60), v.maxValue(14 * 60)), 0),
});

/** The webhook card's "Retry" on a failed fulfilment job. */
export const retryJobSchema = v.object({
  intent: v.literal("retry"),
  id: v.pipe(text(), v.trim(), v.nonEmpty("Unknown job"), v.maxLength(300, "Unknown job")),
});
