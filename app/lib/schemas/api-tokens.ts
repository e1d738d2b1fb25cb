// The Security page's API token forms, checked in the browser and again on the server.
import * as v from "valibot";

/** What a reseller's token may be allowed to do; staff tokens add capabilities later. */
export const MEMBER_SCOPES = ["keys:create", "keys:read", "keys:manage", "balance:read"] as const;

// One field holding the chosen scopes, separated by spaces or commas.
const scopeList = v.pipe(
  v.optional(v.string(), ""),
  v.transform((value) => [...new Set(value.split(/[\s,]+/).filter(Boolean))]),
  v.array(v.picklist(MEMBER_SCOPES, "Unknown scope")),
  v.minLength(1, "Choose at least one scope"),
);

export const apiTokenSchema = v.variant(
  "intent",
  [
    v.object({
      intent: v.literal("create-api-token"),
      name: v.pipe(v.string(), v.trim(), v.minLength(1, "Give the token a name"), v.maxLength(60, "At most 60 characters")),
      scopes: scopeList,
      expiresInDays: v.optional(v.picklist(["", "7", "30", "90", "365"], "Choose an expiry"), ""),
      password: v.optional(v.string(), ""),
    }),
    v.object({ intent: v.literal("revoke-api-token"), token: v.pipe(v.string(), v.toNumber(), v.integer()) }),
  ],
  "Unknown request",
);

export type ApiTokenInput = Extract<v.InferOutput<typeof apiTokenSchema>, { intent: "create-api-token" }>;
