// A member's request for a replacement key (the subscription card's form) and the staff's
// decision on one; the forms' schemas run in the browser too.
import * as v from "valibot";

/** How long after activation a key banned in game may be replaced: the support page's promise. */
export const REPLACEMENT_WINDOW_HOURS = 48;

export const replacementRequestSchema = v.object({
  intent: v.literal("request-replacement"),
  licenceId: v.pipe(v.string(), v.transform(Number), v.integer("No such licence"), v.minValue(1, "No such licence")),
  description: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.minLength(10, "Tell us in a few words what happened (at least 10 characters)"),
    v.maxLength(1000, "At most 1,000 characters"),
  ),
});

export const replacementDecisionSchema = v.object({
  intent: v.picklist(["approve", "decline"]),
  requestId: v.pipe(v.string(), v.transform(Number), v.integer("No such request"), v.minValue(1, "No such request")),
  reason: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.minLength(3, "Give the member a reason"),
    v.maxLength(500, "At most 500 characters"),
  ),
});
export type ReplacementDecision = v.InferOutput<typeof replacementDecisionSchema>;
