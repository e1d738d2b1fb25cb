// The seller API's part of the OpenAPI document (decision 097): its paths, its bearer tokens and its
// answers. Scopes, plans, states, limits and codes come from the code that uses them.
import { API_ERROR_CODES } from "~/http/api-problems.server";
import { TOKEN_QUOTA, TOKEN_WINDOW_SECONDS } from "~/http/token-rate-limit.server";
import { LICENCE_PLANS } from "~/lib/plans";
import { API_SCOPES, SCOPE_LABELS } from "~/lib/schemas/api-tokens";
import { KEY_TYPES, MAX_KEYS_PER_ORDER } from "~/lib/schemas/reseller";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "~/lib/schemas/seller-api";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const rateLimitHeaders = {
  RateLimit: {
    schema: { type: "string" },
    description: 'What is left of the token\'s quota and when the window resets, e.g. `"per-token";r=117;t=42`.',
  },
  "RateLimit-Policy": {
    schema: { type: "string" },
    description: `The token's quota: \`"per-token";q=${TOKEN_QUOTA};w=${TOKEN_WINDOW_SECONDS}\`.`,
  },
};

const problem = (description: string) => ({
  description,
  headers: rateLimitHeaders,
  content: { "application/problem+json": { schema: ref("Problem") } },
});

const refusals = {
  "401": problem("No token, or one unknown, revoked or expired (UNAUTHORIZED)"),
  "403": problem("The token lacks the scope, or its account the capability (FORBIDDEN)"),
  "429": {
    ...problem("Too many calls with this token (RATE_LIMITED)"),
    headers: { ...rateLimitHeaders, "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait." } },
  },
};

const json = (description: string, schema: object, status = "200") => ({
  [status]: { description, headers: rateLimitHeaders, content: { "application/json": { schema } } },
});

const keyParameter = { name: "key", in: "path", required: true, schema: { type: "string" }, description: "The key, as handed out." };
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: true,
  schema: { type: "string", maxLength: 255 },
  description:
    "One value per intended request (a UUID). Retries with the same value and body run once and answer alike (marked `Idempotent-Replayed: true`); the same value with another body answers 409. Kept for a day.",
};
const pageParameters = [
  { name: "cursor", in: "query", schema: { type: "string" }, description: "`nextCursor` of the previous page." },
  { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
];

const scoped = (scope: string) => [{ sellerToken: [scope] }];

/** A change to one key: its path, scope and the key as it is after. */
const keyChange = (operationId: string, summary: string, extra: Record<string, unknown> = {}) => ({
  post: {
    operationId,
    summary,
    tags: ["Seller"],
    security: scoped("keys:manage"),
    parameters: [keyParameter],
    responses: {
      ...json("The key after the change", ref("SellerKey")),
      "404": problem("No such key within the token's reach (NOT_FOUND)"),
      "409": problem("The key's state does not allow it (CONFLICT)"),
      ...refusals,
    },
    ...extra,
  },
});

export const sellerSecuritySchemes = {
  sellerToken: {
    type: "http",
    scheme: "bearer",
    description: `An API token made on the hub's Security page (\`vtx_…\`). Scopes: ${API_SCOPES.map((scope) => `\`${scope}\` (${SCOPE_LABELS[scope]})`).join(", ")}. A reseller's token reaches the keys they generated; a staff member's reaches any key, each operation by their role's capability.`,
  },
};

export const sellerPaths = {
  "/seller/keys": {
    post: {
      operationId: "createKeys",
      summary: "Create keys for a plan, paid from the reseller balance",
      tags: ["Seller"],
      security: scoped("keys:create"),
      parameters: [idempotencyKey],
      requestBody: { required: true, content: { "application/json": { schema: ref("CreateKeys") } } },
      responses: {
        ...json("The keys made (or, for a retry, the keys the first call made)", ref("CreatedKeys"), "201"),
        "400": problem("The body or the Idempotency-Key breaks its rule (INVALID_REQUEST)"),
        "409": problem("The balance does not cover it, the plan is not on sale, or the Idempotency-Key is in use (CONFLICT)"),
        ...refusals,
      },
    },
    get: {
      operationId: "listKeys",
      summary: "List keys, newest first",
      tags: ["Seller"],
      security: scoped("keys:read"),
      parameters: pageParameters,
      responses: { ...json("A page of keys", ref("KeyPage")), ...refusals },
    },
  },
  "/seller/keys/{key}": {
    get: {
      operationId: "readKey",
      summary: "Read one key",
      tags: ["Seller"],
      security: scoped("keys:read"),
      parameters: [keyParameter],
      responses: { ...json("The key", ref("SellerKey")), "404": problem("No such key within the token's reach (NOT_FOUND)"), ...refusals },
    },
  },
  "/seller/keys/{key}/extend": {
    post: {
      ...keyChange("extendKey", "Extend a key by its plan's term, paid from the balance").post,
      parameters: [keyParameter, idempotencyKey],
      responses: {
        ...json("The key after the extension, and what it cost", ref("ExtendedKey")),
        "404": problem("No such key within the token's reach (NOT_FOUND)"),
        "409": problem("The balance does not cover it, or the Idempotency-Key is in use (CONFLICT)"),
        ...refusals,
      },
    },
  },
  "/seller/keys/{key}/reset-pc": keyChange("resetKeyPc", "Reset a key's PC", {
    description:
      "The next check binds the key to the PC that makes it. A reseller resets each key at most once per cooldown (7 days unless the shop set otherwise); too soon answers 429 with Retry-After.",
  }),
  "/seller/keys/{key}/suspend": keyChange("suspendKey", "Suspend a key", {
    description:
      "The key answers SUSPENDED. A reseller's suspension lets the key's time run on; a staff token's is the back office's pause.",
  }),
  "/seller/keys/{key}/unsuspend": keyChange("unsuspendKey", "Lift a key's suspension"),
  "/seller/keys/{key}/revoke": keyChange("revokeKey", "Revoke a key for good", {
    description: "The key answers REVOKED from now on. A reseller's key was paid when it was made; revoking it refunds nothing.",
  }),
  "/seller/balance": {
    get: {
      operationId: "readBalance",
      summary: "Read the reseller balance",
      tags: ["Seller"],
      security: scoped("balance:read"),
      responses: { ...json("The balance", ref("Balance")), ...refusals },
    },
  },
  "/seller/balance/history": {
    get: {
      operationId: "balanceHistory",
      summary: "The balance's history, newest first",
      tags: ["Seller"],
      security: scoped("balance:read"),
      parameters: pageParameters,
      responses: { ...json("A page of ledger entries", ref("LedgerPage")), ...refusals },
    },
  },
};

const time = { type: ["string", "null"], format: "date-time" };

export const sellerSchemas = {
  Problem: {
    type: "object",
    description: "Problem details (RFC 9457).",
    required: ["type", "title", "status", "detail", "code"],
    properties: {
      type: { type: "string", const: "about:blank" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string", description: "What went wrong, in words a person can read." },
      code: { type: "string", enum: [...new Set(Object.values(API_ERROR_CODES))], description: "Stable; the licence API's codes." },
      field: { type: "string", description: "The body field, query parameter or header the problem is about." },
    },
  },
  CreateKeys: {
    type: "object",
    required: ["plan", "quantity"],
    properties: {
      plan: { type: "string", enum: Object.keys(KEY_TYPES) },
      quantity: { type: "integer", minimum: 1, maximum: MAX_KEYS_PER_ORDER },
    },
  },
  SellerKey: {
    type: "object",
    required: ["key", "product", "plan", "state", "activated", "pcBound", "createdAt", "activatedAt", "expiresAt"],
    properties: {
      key: { type: "string" },
      product: { type: "string" },
      plan: { type: "string", enum: LICENCE_PLANS },
      state: { type: "string", enum: ["not-activated", "active", "expired", "paused", "suspended", "revoked", "banned"] },
      activated: { type: "boolean", description: "Whether a PC has used the key yet (its time runs from then)." },
      pcBound: { type: "boolean", description: "Whether the key is bound to a PC now." },
      createdAt: time,
      activatedAt: time,
      expiresAt: { ...time, description: "Null until activated, and for lifetime keys." },
    },
  },
  CreatedKeys: {
    type: "object",
    required: ["keys", "chargedCents", "replayed"],
    properties: {
      keys: { type: "array", items: ref("SellerKey") },
      chargedCents: { type: "integer", description: "What the keys cost, in US cents, taken from the balance once." },
      replayed: { type: "boolean" },
    },
  },
  ExtendedKey: {
    type: "object",
    required: ["key", "chargedCents", "replayed"],
    properties: { key: ref("SellerKey"), chargedCents: { type: "integer" }, replayed: { type: "boolean" } },
  },
  KeyPage: {
    type: "object",
    required: ["keys", "nextCursor"],
    properties: { keys: { type: "array", items: ref("SellerKey") }, nextCursor: { type: ["string", "null"] } },
  },
  Balance: {
    type: "object",
    required: ["balanceCents", "currency", "discountPercent"],
    properties: {
      balanceCents: { type: "integer" },
      currency: { const: "USD" },
      discountPercent: { type: "integer", description: "The reseller's discount on list prices." },
    },
  },
  LedgerPage: {
    type: "object",
    required: ["entries", "nextCursor"],
    properties: {
      entries: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "kind", "amountCents", "reference", "createdAt"],
          properties: {
            id: { type: "integer" },
            kind: { type: "string", enum: ["top-up", "credit", "purchase", "commission", "dispute-hold", "dispute-release"] },
            amountCents: { type: "integer", description: "Positive in, negative out." },
            reference: { type: ["string", "null"] },
            createdAt: { type: "string", format: "date-time" },
          },
        },
      },
      nextCursor: { type: ["string", "null"] },
    },
  },
};
