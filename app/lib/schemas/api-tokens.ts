// API tokens: the scopes a token may carry, who may grant which, and the Security page's token
// forms (checked in the browser and again on the server).
import * as v from "valibot";
import { can, type Capability, type Role } from "../roles";

/** What a token may be allowed to do in the seller API. */
export const API_SCOPES = ["keys:create", "keys:read", "keys:manage", "balance:read"] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const SCOPE_LABELS: Record<ApiScope, string> = {
  "keys:create": "Create keys (paid from the balance)",
  "keys:read": "Read keys",
  "keys:manage": "Extend, reset, suspend and revoke keys",
  "balance:read": "Read the balance and its history",
};

/**
 * The capability a staff member's token needs for a scope, over every key: reading any key, and
 * managing any key (each operation then asks its own capability too). Creating keys and the
 * balance are a reseller's own, and need the reseller panel.
 */
const STAFF_SCOPES: Partial<Record<ApiScope, Capability>> = { "keys:read": "customers.view", "keys:manage": "licences.reset" };

/** The scopes an account may hold now: a reseller's four, and staff's by their role's capabilities. */
export function grantableScopes(holder: { role: Role | null; reseller: boolean }): ApiScope[] {
  return API_SCOPES.filter((scope) => {
    const capability = STAFF_SCOPES[scope];
    return holder.reseller || (capability !== undefined && can(holder.role, capability));
  });
}

/** Whether the account holds `scope` over every key (staff), not only the keys it generated. */
export const staffScope = (role: Role | null, scope: ApiScope) => {
  const capability = STAFF_SCOPES[scope];
  return capability !== undefined && can(role, capability);
};

/** A scope's checkbox on the form: a field of its own, since a form's fields are read one value each. */
export const scopeField = (scope: ApiScope) => `scope-${scope}` as const;
const ticked = v.pipe(
  v.optional(v.string(), ""),
  v.transform((value) => value !== ""),
);
const scopeBoxes = Object.fromEntries(API_SCOPES.map((scope) => [scopeField(scope), ticked])) as Record<
  ReturnType<typeof scopeField>,
  typeof ticked
>;

export const EXPIRY_DAYS = ["7", "30", "90", "365"] as const;

export const apiTokenSchema = v.variant(
  "intent",
  [
    v.object({
      intent: v.literal("create-api-token"),
      name: v.pipe(v.string(), v.trim(), v.minLength(1, "Give the token a name"), v.maxLength(60, "At most 60 characters")),
      ...scopeBoxes,
      expiresInDays: v.optional(v.picklist(["", ...EXPIRY_DAYS], "Choose an expiry"), ""),
      // The password, or (where two-factor is on) a code from the app or a recovery code.
      password: v.optional(v.string(), ""),
      code: v.optional(v.pipe(v.string(), v.trim()), ""),
    }),
    v.object({ intent: v.literal("revoke-api-token"), token: v.pipe(v.string(), v.toNumber(), v.integer()) }),
  ],
  "Unknown request",
);

export type ApiTokenInput = Extract<v.InferOutput<typeof apiTokenSchema>, { intent: "create-api-token" }>;

/** The scopes ticked on the form. */
export const chosenScopes = (input: ApiTokenInput): ApiScope[] => API_SCOPES.filter((scope) => input[scopeField(scope)]);
