// Reviews' forms: a member's review of a product (written, edited or deleted from the product
// page), staff hiding one, and the product page's social-proof settings. Checked in the browser
// and again on the server.
import * as v from "valibot";
import { HIDE_REASON_MAX_LENGTH, REVIEW_MAX_LENGTH, REVIEW_MIN_LENGTH, SALE_LABEL_MAX_LENGTH } from "../reviews";

const text = () => v.optional(v.string(), "");
const product = v.pipe(text(), v.trim(), v.regex(/^[a-z0-9][a-z0-9-]{0,99}$/, "Unknown product"));

export const saveReviewSchema = v.object({
  intent: v.literal("save"),
  product,
  rating: v.pipe(
    text(),
    v.trim(),
    v.regex(/^[1-5]$/, "Choose a rating from 1 to 5 stars"),
    v.transform((value) => Number(value)),
  ),
  body: v.pipe(
    text(),
    v.trim(),
    v.minLength(REVIEW_MIN_LENGTH, `Tell other buyers a little more (at least ${REVIEW_MIN_LENGTH} characters)`),
    v.maxLength(REVIEW_MAX_LENGTH, `Keep your review under ${REVIEW_MAX_LENGTH} characters`),
  ),
});

export const deleteReviewSchema = v.object({ intent: v.literal("delete"), product });

export const memberReviewSchema = v.variant("intent", [saveReviewSchema, deleteReviewSchema], "Unknown request");
export type SaveReviewInput = v.InferOutput<typeof saveReviewSchema>;

const review = v.pipe(text(), v.trim(), v.regex(/^\d{1,12}$/, "Unknown review"), v.transform(Number));

export const moderateReviewSchema = v.variant(
  "intent",
  [
    v.object({
      intent: v.literal("hide"),
      review,
      reason: v.pipe(
        text(),
        v.trim(),
        v.minLength(3, "Say why it is hidden (at least 3 characters)"),
        v.maxLength(HIDE_REASON_MAX_LENGTH, `Keep the reason under ${HIDE_REASON_MAX_LENGTH} characters`),
      ),
    }),
    v.object({ intent: v.literal("unhide"), review }),
  ],
  "Unknown request",
);

export const promotionsSchema = v.variant(
  "intent",
  [
    v.object({
      intent: v.literal("threshold"),
      threshold: v.pipe(
        text(),
        v.trim(),
        v.regex(/^\d{1,6}$/, "Use a whole number from 1"),
        v.transform(Number),
        v.minValue(1, "Use a whole number from 1"),
      ),
    }),
    v.object({
      intent: v.literal("sale"),
      product,
      label: v.pipe(
        text(),
        v.trim(),
        v.minLength(2, "Name the sale (at least 2 characters)"),
        v.maxLength(SALE_LABEL_MAX_LENGTH, `Keep the label under ${SALE_LABEL_MAX_LENGTH} characters`),
      ),
      // A date and time in UTC, as the form's datetime-local field sends it.
      endsAt: v.pipe(
        text(),
        v.trim(),
        v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, "Choose when the sale ends"),
        v.transform((value) => Date.parse(`${value}:00Z`)),
        v.check((ms) => Number.isFinite(ms), "Choose when the sale ends"),
      ),
    }),
    v.object({ intent: v.literal("end-sale"), product }),
  ],
  "Unknown request",
);
