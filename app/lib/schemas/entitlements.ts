// The staff's entitlement form: a machine name the program checks, the words plan cards use, and
// the plans that include it. Checked in the browser too.
import * as v from "valibot";
import { LICENCE_PLANS } from "../plans";

const name = v.pipe(
  v.optional(v.string(), ""),
  v.trim(),
  v.regex(/^[a-z][a-z0-9-]{0,39}$/, "Lower-case letters, digits and dashes, starting with a letter (at most 40)"),
);

export const entitlementSchema = v.object({
  intent: v.literal("save"),
  name,
  label: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.minLength(1, "Enter the words members read"),
    v.maxLength(60, "At most 60 characters"),
  ),
  // Checkboxes named plan-<plan>, ticked or absent.
  ...Object.fromEntries(LICENCE_PLANS.map((plan) => [`plan-${plan}`, v.optional(v.literal("on"))])),
});
