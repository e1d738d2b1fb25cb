// The licence API's request and the hub's licence forms (reset a PC, ban a key or a PC). The API's
// schema is the contract its OpenAPI document states; the forms' schemas run in the browser too.
import * as v from "valibot";
import { MAX_CODE_LENGTH } from "../codes";
import type { Problem } from "../result";

/** Printable ASCII (space to tilde): what a loader's hardware id is made of. */
const PRINTABLE = /^[\x20-\x7e]*$/;

export const MAX_DEVICE_LENGTH = 64;

export const validateLicenceSchema = v.object({
  key: v.pipe(
    v.string("key must be a string"),
    v.minLength(1, "key is required"),
    v.maxLength(MAX_CODE_LENGTH, `key must be at most ${MAX_CODE_LENGTH} characters`),
  ),
  hwid: v.pipe(
    v.string("hwid must be a string"),
    v.minLength(16, "hwid must be 16 to 256 printable characters"),
    v.maxLength(256, "hwid must be 16 to 256 printable characters"),
    v.regex(PRINTABLE, "hwid must be 16 to 256 printable characters"),
  ),
  nonce: v.pipe(
    v.string("nonce must be a string"),
    v.minLength(16, "nonce must be 16 to 64 printable characters"),
    v.maxLength(64, "nonce must be 16 to 64 printable characters"),
    v.regex(PRINTABLE, "nonce must be 16 to 64 printable characters"),
  ),
  // false: only look, never bind a PC (a key that was never used answers NOT_ACTIVATED).
  activate: v.optional(v.boolean("activate must be true or false"), true),
  // The PC's name as its owner knows it (the computer name), shown in the hub beside the bound PC.
  // Blank means none.
  device: v.optional(
    v.pipe(
      v.string("device must be a string"),
      v.trim(),
      v.maxLength(MAX_DEVICE_LENGTH, `device must be at most ${MAX_DEVICE_LENGTH} printable characters`),
      v.regex(PRINTABLE, `device must be at most ${MAX_DEVICE_LENGTH} printable characters`),
      v.transform((name) => name || undefined),
    ),
  ),
});
export type ValidateLicenceInput = v.InferOutput<typeof validateLicenceSchema>;

/** The program releases its own PC: the validation's request without `activate`. */
export const deactivateLicenceSchema = v.omit(validateLicenceSchema, ["activate"]);

const text = () => v.optional(v.string(), "");
const licenceId = v.pipe(text(), v.regex(/^\d{1,15}$/, "Unknown key"), v.transform(Number));
// Not trimmed: a hardware id is matched exactly as the loader sends it, spaces included.
const hwid = v.pipe(text(), v.nonEmpty("Unknown hardware id"), v.maxLength(256, "Unknown hardware id"));
const reason = v.pipe(text(), v.trim(), v.nonEmpty("Please give a reason"), v.maxLength(200, "Keep the reason under 200 characters"));

/** A member (or an admin) frees a key's PC so the next validation binds a new one. */
export const resetHwidSchema = v.object({ intent: v.literal("reset-hwid", "Unknown action"), licenceId });

/** Admin: adds days to every active licence of a product (or of one of its plans), once per reason. */
export const MAX_COMPENSATION_DAYS = 90;
const compensationFields = {
  product: v.pipe(text(), v.trim(), v.nonEmpty("Choose a product"), v.maxLength(200, "Choose a product")),
  // Empty: every timed plan of the product.
  plan: v.optional(v.union([v.literal(""), v.picklist(["daily", "weekly", "monthly"])], "Choose a plan"), ""),
  days: v.pipe(
    text(),
    v.trim(),
    v.regex(/^\d{1,3}$/, `Add 1 to ${MAX_COMPENSATION_DAYS} days`),
    v.transform(Number),
    v.minValue(1, `Add 1 to ${MAX_COMPENSATION_DAYS} days`),
    v.maxValue(MAX_COMPENSATION_DAYS, `Add 1 to ${MAX_COMPENSATION_DAYS} days`),
  ),
  reason,
};
/** A bulk change's token, as its preview handed it out (decision 104). */
const token = v.pipe(text(), v.trim(), v.regex(/^[0-9a-f-]{36}$/, "Preview the change first"));
/** Adding time is previewed first (how many licences, which), then confirmed with the preview's token. */
export const compensationPreviewSchema = v.object({ intent: v.literal("compensate-preview"), ...compensationFields });
export const compensationSchema = v.object({
  intent: v.literal("compensate"),
  ...compensationFields,
  token: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^[0-9a-f-]{36}$/, "Preview the change first"))),
});
export type CompensationInput = Omit<v.InferOutput<typeof compensationPreviewSchema>, "intent">;

/** Revoking many keys at once: pasted one per line with a reason, previewed, then confirmed. */
export const MAX_BULK_KEYS_LENGTH = 250_000;
export const revokePreviewSchema = v.object({
  intent: v.literal("revoke-preview"),
  keys: v.pipe(
    text(),
    v.check((keys) => keys.trim() !== "", "Paste the keys to revoke, one per line"),
    v.maxLength(MAX_BULK_KEYS_LENGTH, "Revoke at most 1000 keys at a time"),
  ),
  reason,
});

const entitlement = v.pipe(text(), v.trim(), v.regex(/^[a-z][a-z0-9-]{0,39}$/, "Choose an entitlement"));

/**
 * Staff: a licence's PC reset; its ban and the bound PC's ban, each on or off; pausing and resuming
 * it; an entitlement granted or removed on it alone; and time added to every active licence of a product.
 */
export const licenceAdminSchema = v.variant("intent", [
  resetHwidSchema,
  v.object({ intent: v.literal("ban-key"), licenceId, reason }),
  v.object({ intent: v.literal("unban-key"), licenceId }),
  v.object({ intent: v.literal("ban-hwid"), hwid, reason }),
  v.object({ intent: v.literal("unban-hwid"), hwid }),
  v.object({ intent: v.literal("pause"), licenceId, reason }),
  v.object({ intent: v.literal("resume"), licenceId }),
  v.object({ intent: v.picklist(["grant-entitlement", "remove-entitlement"]), licenceId, entitlement }),
  compensationSchema,
  compensationPreviewSchema,
  revokePreviewSchema,
  v.object({ intent: v.picklist(["compensate-undo", "revoke-many", "revoke-undo"]), token }),
]);
export type LicenceAdminInput = v.InferOutput<typeof licenceAdminSchema>;
/** The staff changes to one licence (everything but the bulk changes: time added to many, many keys revoked). */
export type LicenceChangeInput = Exclude<
  LicenceAdminInput,
  { intent: "compensate" | "compensate-preview" | "compensate-undo" | "revoke-preview" | "revoke-many" | "revoke-undo" }
>;

/** Admin: the licence page's key search (GET ?key=); no key means nothing was searched yet. */
export const licenceLookupSchema = v.object({
  key: v.pipe(text(), v.trim(), v.maxLength(MAX_CODE_LENGTH, `Keys are at most ${MAX_CODE_LENGTH} characters`)),
});

/** The toast title for a licence form's input problem, in the browser and from the server. */
export const licenceInputTitle = (problem: Problem) =>
  problem.field === "reason" ? "Reason required" : problem.field === "days" ? "Days required" : "Error";
