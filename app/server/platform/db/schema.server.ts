// The D1 data model. The first tables (profiles, user_roles, product_codes, crypto_orders,
// status_updates…) keep the names and fields the storefront's first version used, so its data moves
// over as it is; everything the server needs beyond that (accounts, sessions, dedupe, outbox) is here too.
// Times are integer milliseconds since the epoch; money we own is integer cents.
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, sqliteView, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { AFFILIATE_STATES } from "../../../lib/affiliates";
import { LINK_RULES, RETENTION_DEFAULT_DAYS, ROOM_KINDS } from "../../../lib/chat-rooms";
import { ORDER_SOURCES } from "../../../lib/orders";
import { LICENCE_PLANS } from "../../../lib/plans";
import { RELEASE_CHANNELS } from "../../../lib/releases";
import { ROLES } from "../../../lib/roles";
import { PRODUCT_STATUSES } from "../../../lib/status";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    // Null for accounts that only ever signed in through OAuth.
    passwordHash: text("password_hash"),
    emailVerifiedAt: integer("email_verified_at"),
    createdAt: integer("created_at").notNull(),
    // A banned account cannot sign in and its sessions are ended (an admin's decision, with a reason).
    bannedAt: integer("banned_at"),
    banReason: text("ban_reason"),
    // When the member (or staff, at their request) deleted the account. The row stays, anonymised,
    // so the orders and money records that point at it keep their accounting (decision 099).
    deletedAt: integer("deleted_at"),
  },
  (t) => [uniqueIndex("users_email_unique").on(sql`lower(${t.email})`), index("users_created").on(t.createdAt)],
);

// The public face of an account: what other members see in chat and the navigation bar.
export const profiles = sqliteTable(
  "profiles",
  {
    id: text("id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    username: text("username").notNull(),
    avatarUrl: text("avatar_url"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("profiles_username_unique").on(sql`lower(${t.username})`)],
);

export const userRoles = sqliteTable(
  "user_roles",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    // An account has at most one role: admin or support (members have none).
    role: text("role", { enum: ROLES }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId] }), check("user_roles_role", sql`${t.role} in ('admin', 'support')`)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    // SHA-256 of the cookie token, hex. The token itself is never stored.
    id: text("id").primaryKey(),
    // A random name for the session that pages may show and forms may send (to sign it out, to
    // close its chat sockets); unlike `id`, it is no step towards the cookie.
    publicId: text("public_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    userAgent: text("user_agent"),
    // The client address the session started from: a customer's known addresses, for staff blocking them.
    ip: text("ip"),
    // Roughly where the session started ("Berlin, DE"), from Cloudflare's view of the client.
    place: text("place"),
  },
  (t) => [uniqueIndex("sessions_public_id").on(t.publicId), index("sessions_user").on(t.userId), index("sessions_expires").on(t.expiresAt)],
);

// Password reset links: only the SHA-256 of the token is kept. An account has at most one (a
// newer request replaces the older link); a link works once, for 30 minutes.
export const passwordResetTokens = sqliteTable(
  "password_reset_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [uniqueIndex("password_reset_user").on(t.userId)],
);

// Passkeys (WebAuthn credentials). `id` is the credential ID, base64url, as the authenticator
// gave it; `publicKey` is the COSE public key, base64url.
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull(),
    // JSON array of the transports the authenticator reported ("internal", "usb", ...).
    transports: text("transports"),
    deviceType: text("device_type", { enum: ["singleDevice", "multiDevice"] }).notNull(),
    backedUp: integer("backed_up", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

// WebAuthn ceremonies in progress. The browser holds a random token in a short-lived cookie; the
// row (under the token's SHA-256) holds the challenge, what it is for and, once known, the account.
// A ceremony is used once.
export const webauthnChallenges = sqliteTable(
  "webauthn_challenges",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose", { enum: ["register", "sign-in", "second-factor"] }).notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    challenge: text("challenge").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("webauthn_challenges_expires").on(t.expiresAt)],
);

export const emailVerificationTokens = sqliteTable(
  "email_verification_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("email_verification_user").on(t.userId)],
);

export const totpFactors = sqliteTable("totp_factors", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  status: text("status", { enum: ["pending", "verified"] }).notNull(),
  // The last accepted time step: a code is good once, even within its 30 s window.
  lastUsedStep: integer("last_used_step"),
  createdAt: integer("created_at").notNull(),
  verifiedAt: integer("verified_at"),
});

export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [uniqueIndex("recovery_codes_user_code").on(t.userId, t.codeHash)],
);

export const oauthAccounts = sqliteTable(
  "oauth_accounts",
  {
    provider: text("provider").notNull(),
    providerUserId: text("provider_user_id").notNull(),
    // The name the provider showed when the link was made, so the member sees which account it is.
    providerUsername: text("provider_username"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
  },
  // One shop account per provider account (the key), and one provider account per shop account:
  // a second link is refused here even when two round trips finish at the same moment.
  (t) => [primaryKey({ columns: [t.provider, t.providerUserId] }), uniqueIndex("oauth_accounts_user_provider").on(t.userId, t.provider)],
);

// Failed sign-in counters, one row per account and one per client address.
export const authThrottle = sqliteTable("auth_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  lastFailureAt: integer("last_failure_at").notNull(),
  blockedUntil: integer("blocked_until").notNull(),
});

export const productCodes = sqliteTable(
  "product_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // Canonical Storefront GID: gid://shopify/ProductVariant/<n>
    variantId: text("variant_id").notNull(),
    // Product title + " - " + variant title, as stocked.
    variantTitle: text("variant_title").notNull(),
    code: text("code").notNull(),
    isUsed: integer("is_used", { mode: "boolean" }).notNull().default(false),
    usedAt: integer("used_at"),
    customerEmail: text("customer_email"),
    orderId: text("order_id"),
    // Which unit of which order line this code fulfils. One code per unit, enforced below: the
    // guard that keeps retries and concurrent deliveries from handing out a second key.
    orderLineId: text("order_line_id"),
    unitIndex: integer("unit_index"),
    revokedAt: integer("revoked_at"),
    // When the buyer was sent this key (in the order's e-mail, a later one for units added to the
    // order, a backorder's or a replacement's): a key handed out but not yet mailed has none.
    mailedAt: integer("mailed_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // A code is a licence key: it names one licence, so it is unique across every variant.
    uniqueIndex("product_codes_code").on(t.code),
    uniqueIndex("product_codes_order_unit").on(t.orderId, t.orderLineId, t.unitIndex),
    index("product_codes_available").on(t.variantId, t.isUsed, t.id),
    index("product_codes_sold").on(t.isUsed, t.usedAt),
    index("product_codes_order").on(t.orderId),
  ],
);

export const userSubscriptions = sqliteTable(
  "user_subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["active", "expired", "revoked"] }).notNull(),
    productTitle: text("product_title").notNull(),
    variantTitle: text("variant_title").notNull(),
    priceCurrency: text("price_currency").notNull(),
    priceAmount: text("price_amount").notNull(),
    purchaseDate: integer("purchase_date").notNull(),
    expiryDate: integer("expiry_date"),
    productCodeId: integer("product_code_id").references(() => productCodes.id, { onDelete: "set null" }),
    orderId: text("order_id"),
  },
  (t) => [
    index("user_subscriptions_user").on(t.userId, t.purchaseDate),
    uniqueIndex("user_subscriptions_code").on(t.productCodeId),
    index("user_subscriptions_expiry").on(t.status, t.expiryDate),
    check("user_subscriptions_status", sql`${t.status} in ('active', 'expired', 'revoked')`),
  ],
);

export const resellerAccounts = sqliteTable(
  "reseller_accounts",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    balanceCents: integer("balance_cents").notNull().default(0),
    discountRate: integer("discount_rate").notNull().default(50),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    check("reseller_balance_non_negative", sql`${t.balanceCents} >= 0`),
    check("reseller_discount_range", sql`${t.discountRate} between 0 and 100`),
  ],
);

export const resellerKeys = sqliteTable(
  "reseller_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    keyCode: text("key_code").notNull().unique(),
    keyType: text("key_type", { enum: ["monthly", "weekly"] }).notNull(),
    status: text("status", { enum: ["active", "used"] })
      .notNull()
      .default("active"),
    priceCents: integer("price_cents").notNull(),
    purchaseDate: integer("purchase_date").notNull(),
    // The balance ledger's purchase row that paid for it: the reseller order it belongs to.
    purchaseId: integer("purchase_id"),
  },
  (t) => [
    index("reseller_keys_user").on(t.userId, t.purchaseDate),
    index("reseller_keys_purchase").on(t.purchaseId),
    check("reseller_keys_type", sql`${t.keyType} in ('monthly', 'weekly')`),
    check("reseller_keys_status", sql`${t.status} in ('active', 'used')`),
  ],
);

// Every change to a reseller's balance, with what caused it: a crypto top-up (its order number),
// an admin's credit, or a purchase of keys. A top-up is credited once: its reference is unique.
export const resellerLedger = sqliteTable(
  "reseller_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["top-up", "credit", "purchase", "commission", "dispute-hold", "dispute-release"] }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    reference: text("reference"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("reseller_ledger_user").on(t.userId, t.createdAt),
    index("reseller_ledger_kind").on(t.kind, t.createdAt),
    uniqueIndex("reseller_ledger_top_up")
      .on(t.reference)
      .where(sql`${t.kind} = 'top-up'`),
    // A credit's reference is the form's one-time request id: a second send of the same form
    // (a double click, a retried request) cannot credit twice.
    uniqueIndex("reseller_ledger_credit")
      .on(t.reference)
      .where(sql`${t.kind} = 'credit'`),
    // Affiliate commission moved to the balance: its reference is the withdrawal's, credited once.
    uniqueIndex("reseller_ledger_commission")
      .on(t.reference)
      .where(sql`${t.kind} = 'commission'`),
    // A payment dispute's hold on commission already paid into the balance, and its release: once each per dispute.
    uniqueIndex("reseller_ledger_dispute")
      .on(t.kind, t.reference)
      .where(sql`${t.kind} in ('dispute-hold', 'dispute-release')`),
    check("reseller_ledger_kind", sql`${t.kind} in ('top-up', 'credit', 'purchase', 'commission', 'dispute-hold', 'dispute-release')`),
  ],
);

// Every key the shop hands out is a licence: a stocked code sold to an order unit, or a key a
// reseller generated. The loader validates it through the public API; the first valid call binds
// the PC's hardware id and, for timed plans, starts the clock (decision 030).
export const licences = sqliteTable(
  "licences",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    key: text("key").notNull(),
    product: text("product").notNull(),
    plan: text("plan", { enum: LICENCE_PLANS }).notNull(),
    ownerEmail: text("owner_email").notNull(),
    productCodeId: integer("product_code_id").references(() => productCodes.id, { onDelete: "cascade" }),
    resellerKeyId: text("reseller_key_id").references(() => resellerKeys.id, { onDelete: "cascade" }),
    // The order that paid for it (Shopify order id or crypto order number); null for reseller keys.
    orderId: text("order_id"),
    createdAt: integer("created_at").notNull(),
    activatedAt: integer("activated_at"),
    // Null for lifetime plans, and for timed plans until activation.
    expiresAt: integer("expires_at"),
    // The hardware id the licence is bound to; null until the first valid call and after a reset.
    hwid: text("hwid"),
    revokedAt: integer("revoked_at"),
    bannedAt: integer("banned_at"),
    banReason: text("ban_reason"),
    lastCheckAt: integer("last_check_at"),
    lastCheckPlace: text("last_check_place"),
    // The bound PC's name as its program reports it (the computer name), for the owner to recognise it.
    lastCheckDevice: text("last_check_device"),
    // The last reset by anyone, and the owner's last self-service reset (the cooldown's start).
    lastResetAt: integer("last_reset_at"),
    lastOwnerResetAt: integer("last_owner_reset_at"),
    // Paused by staff: the key answers SUSPENDED and its clock stands still; resuming pushes the
    // expiry out by the time it was paused (decision 047).
    pausedAt: integer("paused_at"),
    // Suspended by the shop's fraud rules, apart from staff's pause (decision 092): an open payment
    // dispute of its order ("dispute:<id>") or shared-key detection ("sharing"). It answers SUSPENDED
    // with `suspend_reason`, which the program may show; its clock keeps running.
    suspendedAt: integer("suspended_at"),
    suspendedBy: text("suspended_by"),
    suspendReason: text("suspend_reason"),
    // The entitlement names the licence grants: its plan's at the sale, copied so that changing the
    // plan later takes nothing away (decision 054); staff may grant or remove one on a single licence.
    entitlements: text("entitlements", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
  },
  (t) => [
    uniqueIndex("licences_key").on(t.key),
    uniqueIndex("licences_product_code").on(t.productCodeId),
    uniqueIndex("licences_reseller_key").on(t.resellerKeyId),
    index("licences_owner").on(sql`lower(${t.ownerEmail})`),
    index("licences_hwid").on(t.hwid),
    // The licences of an order, whose owners' Discord roles follow its payment or refund.
    index("licences_order").on(t.orderId),
    // Licences ending soon or lately: the renewal reminders' and auto-renewal's sweep (decision 091).
    index("licences_expiry").on(t.expiresAt),
    // Licences stopped lately, whichever path stopped them: the webhook events' sweep (decision 102).
    index("licences_revoked").on(t.revokedAt),
    index("licences_suspended").on(t.suspendedAt),
    index("licences_banned").on(t.bannedAt),
    index("licences_paused").on(t.pausedAt),
    check("licences_plan", sql`${t.plan} in ('daily', 'weekly', 'monthly', 'lifetime')`),
  ],
);

// Every hardware-id reset, by the owner or by an admin, shown to the owner as the key's history.
// Named capabilities a plan promises (beta, configs, ...), defined by staff; the words are the plan card's.
export const entitlements = sqliteTable(
  "entitlements",
  {
    name: text("name").primaryKey(),
    label: text("label").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [check("entitlements_name", sql`${t.name} glob '[a-z][a-z0-9-]*' and length(${t.name}) <= 40`)],
);

// Which entitlements a plan includes now; a sale copies them onto its licence.
export const planEntitlements = sqliteTable(
  "plan_entitlements",
  {
    plan: text("plan", { enum: LICENCE_PLANS }).notNull(),
    entitlement: text("entitlement")
      .notNull()
      .references(() => entitlements.name, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.plan, t.entitlement] }),
    check("plan_entitlements_plan", sql`${t.plan} in ('daily', 'weekly', 'monthly', 'lifetime')`),
  ],
);

export const RELEASE_STATES = ["uploading", "ready", "published", "yanked"] as const;

// A release of the program: one file in R2 (uploaded in parts, decision 056), its SHA-256 computed
// from the stored bytes, published on a channel; a yanked release stays, hidden.
export const releases = sqliteTable(
  "releases",
  {
    id: text("id").primaryKey(),
    // The catalogue product it is a build of, by title, as licences name theirs (`licences.product`):
    // only a live licence of this product may have it (decision 082).
    product: text("product").notNull(),
    version: text("version").notNull(),
    channel: text("channel", { enum: RELEASE_CHANNELS }).notNull(),
    notes: text("notes").notNull().default(""),
    // The entitlement a member needs beyond the channel's own (null: none).
    entitlement: text("entitlement").references(() => entitlements.name, { onDelete: "restrict" }),
    fileName: text("file_name").notNull(),
    objectKey: text("object_key").notNull().unique(),
    contentType: text("content_type").notNull().default("application/octet-stream"),
    // The R2 multipart upload's id while parts arrive; null once the object is whole.
    uploadId: text("upload_id"),
    // The parts stored so far, part number to R2's etag: what a resumed upload skips.
    parts: text("parts", { mode: "json" })
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'`),
    size: integer("size").notNull(),
    sha256: text("sha256"),
    state: text("state", { enum: RELEASE_STATES }).notNull().default("uploading"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    publishedAt: integer("published_at"),
    yankedAt: integer("yanked_at"),
  },
  (t) => [
    uniqueIndex("releases_product_channel_version").on(t.product, t.channel, t.version),
    index("releases_state").on(t.state, t.product, t.channel),
    check("releases_channel", sql`${t.channel} in ('stable', 'beta')`),
    check("releases_state_names", sql`${t.state} in ('uploading', 'ready', 'published', 'yanked')`),
  ],
);

export const REPLACEMENT_STATES = ["pending", "approved", "declined"] as const;

// A member's request for a replacement key (banned in game within 48 hours of activation): one per
// key, decided by staff.
export const replacementRequests = sqliteTable(
  "replacement_requests",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    licenceId: integer("licence_id")
      .notNull()
      .references(() => licences.id, { onDelete: "cascade" }),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    description: text("description").notNull(),
    state: text("state", { enum: REPLACEMENT_STATES }).notNull().default("pending"),
    reason: text("reason"),
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
    decidedAt: integer("decided_at"),
    // The random mark of the decision that won the request: only that caller acts on it, or gives it back.
    claim: text("claim"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("replacement_requests_licence").on(t.licenceId),
    index("replacement_requests_state").on(t.state, t.createdAt),
    check("replacement_requests_states", sql`${t.state} in ('pending', 'approved', 'declined')`),
  ],
);

export const licenceResets = sqliteTable(
  "licence_resets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    licenceId: integer("licence_id")
      .notNull()
      .references(() => licences.id, { onDelete: "cascade" }),
    by: text("by", { enum: ["owner", "admin"] }).notNull(),
    actorUserId: text("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    previousHwid: text("previous_hwid"),
    resetAt: integer("reset_at").notNull(),
  },
  (t) => [index("licence_resets_licence").on(t.licenceId, t.resetAt), check("licence_resets_by", sql`${t.by} in ('owner', 'admin')`)],
);

// Time added to every active licence of a product (or of one of its plans) after a detection or
// an outage (decision 047). A reason compensates a product once: the scope key folds the product
// and the reason, so sending the same form twice adds nothing the second time.
export const licenceCompensations = sqliteTable(
  "licence_compensations",
  {
    id: text("id").primaryKey(),
    scopeKey: text("scope_key").notNull(),
    product: text("product").notNull(),
    // Null: every timed plan of the product.
    plan: text("plan", { enum: LICENCE_PLANS }),
    days: integer("days").notNull(),
    reason: text("reason").notNull(),
    licenceCount: integer("licence_count"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("licence_compensations_scope").on(t.scopeKey), index("licence_compensations_created").on(t.createdAt)],
);

// Which licences a compensation extended: written in the same transaction as the extension, so
// the owners' e-mails can be sent (and sent again, deduplicated) from it.
export const licenceExtensions = sqliteTable(
  "licence_extensions",
  {
    compensationId: text("compensation_id")
      .notNull()
      .references(() => licenceCompensations.id, { onDelete: "cascade" }),
    licenceId: integer("licence_id")
      .notNull()
      .references(() => licences.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.compensationId, t.licenceId] }), index("licence_extensions_licence").on(t.licenceId)],
);

// Hardware ids an admin banned: every key answers BANNED on such a PC.
export const bannedHwids = sqliteTable("banned_hwids", {
  hwid: text("hwid").primaryKey(),
  reason: text("reason").notNull(),
  bannedBy: text("banned_by").references(() => users.id, { onDelete: "set null" }),
  bannedAt: integer("banned_at").notNull(),
});

// A crypto invoice: a plan's key, or a reseller's balance top-up, paid in BTC or LTC to an address
// of its own, derived from the shop's wallet (decision 032). States follow BTCPay's invoices:
// pending (New), underpaid (PaidPartial, still open), processing (paid in full, waiting for
// confirmations, then for its key), complete (Settled), expired, paid-late, cancelled; `submitted`
// is kept for orders from before on-chain checks, whose buyers typed a transaction id.
export const CRYPTO_ORDER_STATES = [
  "pending",
  "underpaid",
  "processing",
  "complete",
  "expired",
  "paid-late",
  "cancelled",
  "submitted",
] as const;

export const cryptoOrders = sqliteTable(
  "crypto_orders",
  {
    id: text("id").primaryKey(),
    orderNumber: text("order_number").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    // "key": a plan's key, handed out on payment; "top-up": the amount is credited to the buyer's reseller balance.
    purpose: text("purpose", { enum: ["key", "top-up"] })
      .notNull()
      .default("key"),
    status: text("status", { enum: CRYPTO_ORDER_STATES }).notNull(),
    productTitle: text("product_title").notNull(),
    variantTitle: text("variant_title").notNull(),
    variantId: text("variant_id").notNull(),
    customerEmail: text("customer_email").notNull(),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull(),
    cryptoType: text("crypto_type", { enum: ["BTC", "LTC"] }).notNull(),
    walletAddress: text("wallet_address").notNull(),
    // Which wallet account and receive index the address came from (null for orders from before).
    walletAccount: text("wallet_account"),
    addressIndex: integer("address_index"),
    // The quote: what is due in the coin's smallest unit (satoshi, litoshi), at this many US cents
    // per coin, until expiresAt. rateIsDemo marks the fixed local demo rate.
    amountUnits: integer("amount_units"),
    rateCents: integer("rate_cents"),
    rateIsDemo: integer("rate_is_demo", { mode: "boolean" }).notNull().default(false),
    expiresAt: integer("expires_at"),
    // What the chain showed at the last check: the sum paid to the address (confirmed or not),
    // the confirmations of its least-confirmed payment, and the payments themselves as JSON
    // [{ txid, units, height }] (the evidence the buyer and the admin see).
    receivedUnits: integer("received_units").notNull().default(0),
    confirmations: integer("confirmations").notNull().default(0),
    payments: text("payments").notNull().default("[]"),
    // When money was first seen, and when the order was found paid (enough confirmations, or an
    // admin's decision): from then on its key (or top-up) is due.
    firstSeenAt: integer("first_seen_at"),
    paidAt: integer("paid_at"),
    // Why the order waits for a person: underpaid past expiry, overpaid, or paid after expiry.
    review: text("review", { enum: ["underpaid", "overpaid", "paid-late"] }),
    checkedAt: integer("checked_at"),
    transactionId: text("transaction_id"),
    productCode: text("product_code"),
    // The affiliate whose referral this order was opened under (its quote carries their discount).
    // No foreign key: an account's deletion leaves its orders' history as it was.
    referredBy: text("referred_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    // The licence this order renews or moves to its plan (decision 090): paid, it extends that
    // licence instead of handing out a key, unless the licence can no longer be (then a key goes out).
    renewsLicenceId: integer("renews_licence_id"),
  },
  (t) => [
    index("crypto_orders_status").on(t.status, t.createdAt),
    index("crypto_orders_user").on(t.userId, t.createdAt),
    index("crypto_orders_review").on(t.review),
    index("crypto_orders_email").on(sql`lower(${t.customerEmail})`),
    index("crypto_orders_created").on(t.createdAt),
    index("crypto_orders_paid").on(t.variantId, t.paidAt),
    // An address is never handed to two orders.
    uniqueIndex("crypto_orders_address")
      .on(t.cryptoType, t.walletAddress)
      .where(sql`${t.addressIndex} is not null`),
    // One payment pays for one order: a transaction ID cannot be submitted for a second order
    // while the first that used it is still open or complete.
    uniqueIndex("crypto_orders_transaction")
      .on(t.transactionId)
      .where(sql`${t.transactionId} is not null and ${t.status} <> 'cancelled'`),
    check(
      "crypto_orders_status_values",
      sql`${t.status} in ('pending', 'underpaid', 'processing', 'complete', 'expired', 'paid-late', 'cancelled', 'submitted')`,
    ),
    check("crypto_orders_coin", sql`${t.cryptoType} in ('BTC', 'LTC')`),
    check("crypto_orders_purpose", sql`${t.purpose} in ('key', 'top-up')`),
  ],
);

// The next receive index of each wallet account: one row per extended public key, so a changed
// key starts at 0 and an address is never given out twice.
export const walletCursors = sqliteTable("wallet_cursors", {
  account: text("account").primaryKey(),
  nextIndex: integer("next_index").notNull(),
});

// The simulated chain that stands in for a block explorer in development and tests (never used
// when an explorer URL is configured): payments to addresses, and each coin's block height.
export const simulatedPayments = sqliteTable(
  "simulated_payments",
  {
    txid: text("txid").primaryKey(),
    coin: text("coin", { enum: ["BTC", "LTC"] }).notNull(),
    address: text("address").notNull(),
    units: integer("units").notNull(),
    height: integer("height"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("simulated_payments_address").on(t.address)],
);

export const simulatedTips = sqliteTable("simulated_tips", {
  coin: text("coin", { enum: ["BTC", "LTC"] }).primaryKey(),
  height: integer("height").notNull(),
});

export const statusUpdates = sqliteTable(
  "status_updates",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    title: text("title").notNull(),
    description: text("description").notNull(),
    type: text("type", { enum: ["update", "maintenance", "incident"] })
      .notNull()
      .default("update"),
    // A post may set one product's status (decision 046): the product's current status is the one
    // its latest such post set.
    productId: text("product_id"),
    productStatus: text("product_status", { enum: PRODUCT_STATUSES }),
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("status_updates_created").on(t.createdAt),
    index("status_updates_product").on(t.productId, t.createdAt),
    check("status_updates_type", sql`${t.type} in ('update', 'maintenance', 'incident')`),
    check(
      "status_updates_product_status",
      sql`${t.productStatus} is null or (${t.productId} is not null and ${t.productStatus} in ('undetected', 'updating', 'detected', 'down'))`,
    ),
  ],
);

// Orders as Shopify reported them. Lines are kept (JSON) so backorders filled later can name them.
export const shopifyOrders = sqliteTable(
  "shopify_orders",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    email: text("email").notNull(),
    financialStatus: text("financial_status"),
    currency: text("currency").notNull(),
    totalPrice: text("total_price"),
    // JSON: [{ id, variantId, quantity, title, variantTitle, price }]
    lineItems: text("line_items").notNull(),
    receivedAt: integer("received_at").notNull(),
    paidAt: integer("paid_at"),
    cancelledAt: integer("cancelled_at"),
    refundedAt: integer("refunded_at"),
    // The signed `updated_at` of the newest order body applied: an older body (a replay, or a
    // delivery overtaken by a later one) is ignored, so it can never roll the order back.
    sourceUpdatedAt: integer("source_updated_at"),
    // When the newest paid body's units were all handed out: a refund is applied only then, so it
    // never finds a unit that has no key yet (and would leave that unit's key working).
    fulfilledAt: integer("fulfilled_at"),
    // Held by the one run mailing the order's keys, so two deliveries never mail the same key.
    mailLease: text("mail_lease"),
    mailLeaseUntil: integer("mail_lease_until"),
    // The cart the order was paid from (Shopify's cart token, or the demo checkout's id): how the
    // buyer's cart learns that it was paid (decision 045).
    cartToken: text("cart_token"),
    // Where the buyer paid from, as the order says (billing country, the browser's address): what
    // the order's risk is judged on (decision 093).
    country: text("country"),
    browserIp: text("browser_ip"),
    // The licence the cart named for this payment to renew: kept so an order held for review and
    // released later still extends that licence rather than handing out a new key.
    renewsLicenceId: integer("renews_licence_id"),
    // JSON array of the risk reasons found when it was paid; null when none were.
    riskReasons: text("risk_reasons"),
    // Held for review instead of keyed (a blocked buyer, or a risky order while staff hold those);
    // staff release it (the keys go out) or refund it in Shopify.
    heldAt: integer("held_at"),
    releasedAt: integer("released_at"),
  },
  (t) => [
    index("shopify_orders_held").on(t.heldAt),
    index("shopify_orders_email").on(sql`lower(${t.email})`),
    index("shopify_orders_received").on(t.receivedAt),
    index("shopify_orders_name").on(t.name),
    index("shopify_orders_cart").on(t.cartToken),
  ],
);

// The variants a paid card order has a line for, with the time it was paid: rewritten from the
// stored order each time its body is recorded (decision 128). The product page's "bought in the
// last 24 hours" finds the product's sales through its index instead of reading the lines of every
// order of the day; the order itself still decides whether one counts.
export const shopifyOrderVariants = sqliteTable(
  "shopify_order_variants",
  {
    // No foreign key: the rows are derived from the order, and a cascade would empty the table
    // whenever a migration rebuilds shopify_orders (D1 keeps foreign keys on while it does).
    orderId: text("order_id").notNull(),
    variantId: text("variant_id").notNull(),
    paidAt: integer("paid_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.variantId] }), index("shopify_order_variants_sold").on(t.variantId, t.paidAt)],
);

// Refunds as Shopify reported them. A refund is applied once (the claim token marks the one run
// that applied it); one that arrives before its order was paid here waits for that payment.
export const shopifyRefunds = sqliteTable(
  "shopify_refunds",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id").notNull(),
    // JSON: [{ lineId, quantity }]
    lineItems: text("line_items").notNull(),
    receivedAt: integer("received_at").notNull(),
    claimToken: text("claim_token"),
    appliedAt: integer("applied_at"),
  },
  (t) => [index("shopify_refunds_order").on(t.orderId, t.appliedAt)],
);

// Every webhook request we accepted, keyed by Shopify's delivery id so retries are recognised.
// The job queue's consumer works from this row: `payload` holds the signed body until the delivery is
// handled (a queue message is too small for the largest body we accept), then it is cleared.
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    topic: text("topic").notNull(),
    orderId: text("order_id"),
    // queued → processed | ignored | rejected; error while the queue retries it (and after it
    // gives up: the job is then on the admin's list of failed jobs).
    outcome: text("outcome").notNull(),
    detail: text("detail"),
    payload: text("payload"),
    receivedAt: integer("received_at").notNull(),
    // The buyer's address (lower case) as the stored body names it: computed by SQLite from the
    // body, and indexed, so a member's page finds an order still on its way without reading every
    // pending body. Null once the body is cleared.
    buyerEmail: text("buyer_email").generatedAlwaysAs(
      sql`case when json_valid(payload) then lower(coalesce(json_extract(payload, '$.email'), json_extract(payload, '$.contact_email'), json_extract(payload, '$.customer.email'))) end`,
      { mode: "virtual" },
    ),
  },
  (t) => [
    index("webhook_deliveries_received").on(t.receivedAt),
    index("webhook_deliveries_outcome").on(t.outcome, t.receivedAt),
    index("webhook_deliveries_order").on(t.orderId, t.receivedAt),
    index("webhook_deliveries_buyer").on(t.buyerEmail, t.outcome),
  ],
);

// Fulfilment jobs that failed: one row per job while its retries run, marked dead once the queue
// gives up on it (the dead-letter queue). The admin sees dead jobs with their error and can send
// them again; a job that succeeds deletes its row.
export const failedJobs = sqliteTable(
  "failed_jobs",
  {
    // The job's own key (e.g. "shopify:<delivery id>"), so a job has at most one row.
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    // The queue message, as sent: a retry sends it again unchanged.
    body: text("body").notNull(),
    attempts: integer("attempts").notNull(),
    lastError: text("last_error").notNull(),
    failedAt: integer("failed_at").notNull(),
    deadAt: integer("dead_at"),
  },
  (t) => [index("failed_jobs_dead").on(t.deadAt)],
);

// A paid order line that found no code in stock; filled first-in-first-out when codes arrive.
export const backorders = sqliteTable(
  "backorders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: text("order_id").notNull(),
    lineItemId: text("line_item_id").notNull(),
    // Which unit of the line (0-based) this backorder stands for.
    unitIndex: integer("unit_index").notNull(),
    variantId: text("variant_id").notNull(),
    variantTitle: text("variant_title").notNull(),
    customerEmail: text("customer_email").notNull(),
    createdAt: integer("created_at").notNull(),
    filledAt: integer("filled_at"),
    productCodeId: integer("product_code_id").references(() => productCodes.id, { onDelete: "set null" }),
    cancelledAt: integer("cancelled_at"),
  },
  (t) => [
    uniqueIndex("backorders_unit").on(t.orderId, t.lineItemId, t.unitIndex),
    index("backorders_open").on(t.variantId, t.filledAt, t.id),
  ],
);

export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    textBody: text("text_body").notNull(),
    htmlBody: text("html_body"),
    status: text("status", { enum: ["pending", "sent", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    // Makes a send idempotent: the same key never produces a second message.
    dedupeKey: text("dedupe_key").unique(),
    // The order the message is about ("<source>:<reference>", as in order_index), for its timeline.
    orderKey: text("order_key"),
    createdAt: integer("created_at").notNull(),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    sentAt: integer("sent_at"),
    // Extra headers the transport sends (JSON object), e.g. a reminder's List-Unsubscribe.
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>(),
  },
  (t) => [
    index("mail_outbox_due").on(t.status, t.nextAttemptAt),
    index("mail_outbox_created").on(t.createdAt),
    index("mail_outbox_order").on(t.orderKey, t.createdAt),
    check("mail_outbox_status", sql`${t.status} in ('pending', 'sent', 'failed')`),
  ],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    actorUserId: text("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    action: text("action").notNull(),
    subject: text("subject"),
    detail: text("detail"),
    // The client address the change came from; null for the Worker's own jobs.
    ip: text("ip"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("audit_log_created").on(t.createdAt),
    index("audit_log_actor").on(t.actorUserId, t.createdAt),
    index("audit_log_action").on(t.action, t.createdAt),
    index("audit_log_subject").on(t.subject, t.createdAt),
  ],
);

// Checkouts of the local demo checkout (used when no Shopify store is configured). Paying one
// produces a Shopify-shaped order webhook, so fulfilment runs exactly as in production.
export const demoCheckouts = sqliteTable("demo_checkouts", {
  // Random, unguessable: the checkout URL is the only key to it, as with Shopify's.
  id: text("id").primaryKey(),
  userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
  email: text("email"),
  // JSON: [{ variantId, productId, productTitle, variantTitle, price: { amount, currencyCode }, quantity }]
  lines: text("lines").notNull(),
  createdAt: integer("created_at").notNull(),
  paidAt: integer("paid_at"),
  orderId: text("order_id"),
  orderNumber: integer("order_number").unique(),
  // What the cart carried to the checkout, as Shopify's cart does: its attributes (JSON
  // [{ key, value }]) and a discount code with the percentage the shop set up for it.
  attributes: text("attributes").notNull().default("[]"),
  discountCode: text("discount_code"),
  discountPercent: integer("discount_percent"),
  // An upgrade's credit for the unused time of the plan it leaves (decision 090), taken off the
  // line as Shopify's draft order takes its applied discount off, and what the buyer reads it as.
  creditCents: integer("credit_cents"),
  creditLabel: text("credit_label"),
});

// A sign-in that passed the password and waits for the second factor. The browser holds the
// token; only its hash is stored. Short-lived, and only a few codes may be tried against it.
export const loginChallenges = sqliteTable(
  "login_challenges",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [index("login_challenges_user").on(t.userId)],
);

// A key an admin handed out by hand from stock (a goodwill key, a replacement outside any order):
// the "admin" source of the order list. Its key is a product code whose order_id is "M-<id>".
export const manualOrders = sqliteTable(
  "manual_orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    email: text("email").notNull(),
    variantId: text("variant_id").notNull(),
    variantTitle: text("variant_title").notNull(),
    reason: text("reason").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("manual_orders_email").on(sql`lower(${t.email})`), index("manual_orders_created").on(t.createdAt)],
);

// Per variant: the number of available codes at which admins are warned, and when that warning
// went out (cleared when stock rises above the threshold again, so each shortage mails once).
export const stockAlerts = sqliteTable("stock_alerts", {
  variantId: text("variant_id").primaryKey(),
  threshold: integer("threshold").notNull(),
  alertedAt: integer("alerted_at"),
});

// Every order of every source in one shape, for the back office's list, search and export. A view,
// so it can never disagree with the tables it reads; each arm is served by its own table's indexes.
// `key` ("<source>:<reference>") names an order everywhere (URLs, mail_outbox.order_key, audit).
// Every column has one affinity in all four arms (a literal or an expression is cast to it): only
// then does SQLite flatten the view into a query that reads each arm's time index in order and
// stops after a page, so the newest orders cost a page per arm, not a sort of every order.
export const orderIndex = sqliteView("order_index", {
  key: text("key").notNull(),
  source: text("source", { enum: ORDER_SOURCES }).notNull(),
  reference: text("reference").notNull(),
  number: text("number").notNull(),
  email: text("email").notNull(),
  emailKey: text("email_key").notNull(),
  userId: text("user_id"),
  state: text("state").notNull(),
  totalCents: integer("total_cents").notNull(),
  currency: text("currency").notNull(),
  // card, BTC, LTC, balance (a reseller's purchase) or none (an admin's manual key).
  method: text("method").notNull(),
  createdAt: integer("created_at").notNull(),
}).as(sql`
  select 'shopify:' || o.id as key, 'shopify' as source, o.id as reference, cast(coalesce(o.name, o.id) as text) as number,
    o.email as email, lower(o.email) as email_key, cast(null as text) as user_id,
    cast(case when o.cancelled_at is not null then 'cancelled' when o.refunded_at is not null then 'refunded'
      when o.paid_at is not null then 'paid' else 'pending' end as text) as state,
    cast(round(coalesce(cast(o.total_price as real), 0) * 100) as integer) as total_cents, o.currency as currency,
    cast('card' as text) as method, o.received_at as created_at
  from shopify_orders o
  union all
  select 'crypto:' || c.order_number, 'crypto', c.order_number, c.order_number, c.customer_email, lower(c.customer_email), c.user_id,
    c.status, c.amount_cents, c.currency, c.crypto_type, c.created_at
  from crypto_orders c
  union all
  select 'reseller:' || l.id, 'reseller', cast(l.id as text), cast('R-' || l.id as text), u.email, lower(u.email), l.user_id,
    cast('complete' as text), cast(-l.amount_cents as integer), cast('USD' as text), cast('balance' as text), l.created_at
  from reseller_ledger l join users u on u.id = l.user_id
  where l.kind = 'purchase'
  union all
  select 'admin:' || m.id, 'admin', cast(m.id as text), cast('M-' || m.id as text), m.email, lower(m.email), m.user_id,
    cast('complete' as text), cast(0 as integer), cast('USD' as text), cast('none' as text), m.created_at
  from manual_orders m
`);

// The affiliate programme (decisions 058-060). A member applies; staff approve (with the
// commission and discount rates), decline or pause. The code is the affiliate's choice, unique
// whatever its case; `shopifyDiscountCode` names the Shopify discount the card checkout applies
// (the code itself when staff name none).
export { AFFILIATE_STATES };

export const affiliates = sqliteTable(
  "affiliates",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    code: text("code").notNull(),
    status: text("status", { enum: AFFILIATE_STATES }).notNull(),
    channel: text("channel").notNull(),
    audience: text("audience").notNull(),
    pitch: text("pitch").notNull(),
    commissionRate: integer("commission_rate").notNull().default(20),
    discountRate: integer("discount_rate").notNull().default(10),
    shopifyDiscountCode: text("shopify_discount_code"),
    appliedAt: integer("applied_at").notNull(),
    decidedAt: integer("decided_at"),
    // Who took the latest staff decision (the one a decision arriving second is told about).
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("affiliates_code").on(sql`lower(${t.code})`),
    index("affiliates_status").on(t.status, t.appliedAt),
    check("affiliates_status_values", sql`${t.status} in ('pending', 'approved', 'declined', 'paused')`),
    check("affiliates_rates", sql`${t.commissionRate} between 0 and 100 and ${t.discountRate} between 0 and 100`),
  ],
);

// Each visit through an affiliate's link: the dashboard's clicks and conversion.
export const affiliateClicks = sqliteTable(
  "affiliate_clicks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    affiliateId: text("affiliate_id")
      .notNull()
      .references(() => affiliates.userId, { onDelete: "cascade" }),
    at: integer("at").notNull(),
  },
  (t) => [index("affiliate_clicks_affiliate").on(t.affiliateId, t.at)],
);

// Every movement of an affiliate's money, never edited in amount: a commission (an order's share,
// held until `availableAt`), its void (same `availableAt`, the negative amount, while held), a
// withdrawal to the reseller balance and a crypto payout (both negative, available at once).
// Pending is the sum of rows not yet available, available the sum of those that are (decision 060).
export const affiliateLedger = sqliteTable(
  "affiliate_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    affiliateId: text("affiliate_id")
      .notNull()
      .references(() => affiliates.userId, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["commission", "void", "withdrawal", "payout"] }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    availableAt: integer("available_at").notNull(),
    // A commission's order ("shopify:<id>" or "crypto:<number>"), what it paid and who bought.
    orderKey: text("order_key"),
    orderCents: integer("order_cents"),
    buyerEmail: text("buyer_email"),
    // A void: the commission's id; a withdrawal or payout: its one-time request id.
    reference: text("reference"),
    // A payout: where it goes, and once staff sent it, the transaction and when.
    payoutAddress: text("payout_address"),
    payoutTransaction: text("payout_transaction"),
    paidAt: integer("paid_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("affiliate_ledger_affiliate").on(t.affiliateId, t.createdAt),
    index("affiliate_ledger_payouts").on(t.kind, t.paidAt),
    uniqueIndex("affiliate_ledger_commission")
      .on(t.orderKey)
      .where(sql`${t.kind} = 'commission'`),
    uniqueIndex("affiliate_ledger_void")
      .on(t.reference)
      .where(sql`${t.kind} = 'void'`),
    uniqueIndex("affiliate_ledger_request")
      .on(t.reference)
      .where(sql`${t.kind} in ('withdrawal', 'payout')`),
    check("affiliate_ledger_kind", sql`${t.kind} in ('commission', 'void', 'withdrawal', 'payout')`),
  ],
);

// The shop's legal pages (Terms of Service, Refund Policy, Privacy Policy) as staff wrote them, in
// Markdown; a page no one has edited yet shows its template (decision 061).
export const LEGAL_PAGE_SLUGS = ["terms", "refunds", "privacy"] as const;

export const legalPages = sqliteTable(
  "legal_pages",
  {
    slug: text("slug", { enum: LEGAL_PAGE_SLUGS }).primaryKey(),
    markdown: text("markdown").notNull(),
    updatedAt: integer("updated_at").notNull(),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [check("legal_pages_slug", sql`${t.slug} in ('terms', 'refunds', 'privacy')`)],
);

// Discord roles that follow the licence (decisions 064 and 065). The guild the shop hands roles out
// in, and what the cron's health check last found there.
export const discordSettings = sqliteTable("discord_settings", {
  // One row: the shop has one guild.
  id: integer("id").primaryKey(),
  guildId: text("guild_id").notNull(),
  updatedAt: integer("updated_at").notNull(),
  // The last health check: when, and what staff must change (a JSON list; empty when all is well).
  healthCheckedAt: integer("health_checked_at"),
  healthProblems: text("health_problems"),
});

// Which Discord role an active licence grants: `grant` is "any" (every active licence) or a plan;
// entitlements plug in as "entitlement:<name>".
export const discordRoleRules = sqliteTable(
  "discord_role_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    grant: text("grant").notNull(),
    roleId: text("role_id").notNull(),
    // The role's name in Discord when the rule was made, for pages that do not ask Discord.
    roleName: text("role_name"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("discord_role_rules_grant_role").on(t.grant, t.roleId)],
);

// Where each linked member's roles stand: the roles their licences justify (desired), what Discord
// last said they have (actual), and the sync's retry state. Written only by the role sync.
export const discordRoleSync = sqliteTable(
  "discord_role_sync",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    discordId: text("discord_id").notNull(),
    desiredRoles: text("desired_roles").notNull().default("[]"),
    // Null until Discord has been asked.
    actualRoles: text("actual_roles"),
    state: text("state", { enum: ["pending", "synced", "not-in-guild", "retrying", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    // A retry parked past the queue's longest delay: the cron sends it when it is due.
    nextAttemptAt: integer("next_attempt_at"),
    lastError: text("last_error"),
    lastSyncAt: integer("last_sync_at"),
    // When the reconcile sweep last compared this member with Discord (oldest first).
    checkedAt: integer("checked_at").notNull().default(0),
  },
  (t) => [index("discord_role_sync_checked").on(t.checkedAt), index("discord_role_sync_next_attempt").on(t.nextAttemptAt)],
);

// Discord accounts a member linked before and no longer does (they unlinked, or linked another
// account): the role sync takes back the roles the shop gave each one, then forgets the row.
export const discordRoleReleases = sqliteTable(
  "discord_role_releases",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    discordId: text("discord_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.discordId] })],
);

// The simulated Discord guild of development and tests (decision 064): its roles, members and the
// faults a developer provokes. Production builds never use these tables.
export const simulatedDiscordRoles = sqliteTable("simulated_discord_roles", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  position: integer("position").notNull(),
  permissions: text("permissions").notNull().default("0"),
});

export const simulatedDiscordMembers = sqliteTable("simulated_discord_members", {
  userId: text("user_id").primaryKey(),
  username: text("username").notNull(),
  roles: text("roles").notNull().default("[]"),
  joinedAt: integer("joined_at").notNull(),
});

export const simulatedDiscordFaults = sqliteTable("simulated_discord_faults", {
  id: integer("id").primaryKey(),
  // How many of the next requests are answered 429, and with what retry_after / global flag.
  rateLimitedRequests: integer("rate_limited_requests").notNull().default(0),
  retryAfterSeconds: integer("retry_after_seconds").notNull().default(5),
  globalLimit: integer("global_limit").notNull().default(0),
  // Every request the simulated API has answered, for the benchmark's subrequest count.
  requests: integer("requests").notNull().default(0),
});

// Reviews from verified buyers (decision 074): one per member and product (the catalogue's product
// GID), written only while the member holds a key for the product that was activated at least a day
// before. Staff hide a review with a reason (and may show it again); a hidden review leaves the
// product page and its average. The handle is the product page's address when it was written, the
// page whose cached copy a change drops.
export const productReviews = sqliteTable(
  "product_reviews",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    productId: text("product_id").notNull(),
    productHandle: text("product_handle").notNull(),
    productTitle: text("product_title").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    rating: integer("rating").notNull(),
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("product_reviews_member").on(t.productId, t.userId),
    index("product_reviews_product").on(t.productId, t.createdAt),
    index("product_reviews_created").on(t.createdAt),
    check("product_reviews_rating", sql`${t.rating} between 1 and 5`),
  ],
);

// Staff's decision to hide a member's review of a product (decision 083). It belongs to the
// (product, member) pair, not to the review row its author may delete: a hidden review stays hidden,
// edited or posted again, until staff show it again (which deletes this row). Written only by the
// back office's moderation (reviews/review-moderation.server.ts); read wherever reviews are shown.
export const reviewModeration = sqliteTable(
  "review_moderation",
  {
    productId: text("product_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    hiddenBy: text("hidden_by").references(() => users.id, { onDelete: "set null" }),
    hiddenAt: integer("hidden_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.userId] })],
);

// A sale staff set on a product (decision 075): the words the product page's sale box shows and
// the real time it ends. The box is gone once it has ended.
export const productSales = sqliteTable("product_sales", {
  productId: text("product_id").primaryKey(),
  label: text("label").notNull(),
  endsAt: integer("ends_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
});

// The storefront's social-proof settings, one row: how many paid orders of a product in the last
// 24 hours it takes before the product page says so (decision 075).
export const storefrontSettings = sqliteTable(
  "storefront_settings",
  {
    id: integer("id").primaryKey(),
    recentPurchasersThreshold: integer("recent_purchasers_threshold").notNull(),
    updatedAt: integer("updated_at").notNull(),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    check("storefront_settings_one_row", sql`${t.id} = 1`),
    check("storefront_settings_threshold", sql`${t.recentPurchasersThreshold} >= 1`),
  ],
);

// Renewals that keep the key (decisions 090 and 091). Every payment that added time to a licence
// or moved it to a longer plan: what it paid, the licence before and after, and the time it added,
// so a refund takes back exactly that. Written by the licences domain in the same transaction as
// the licence it changes; a payment (`claimKey`: an order's unit, a crypto order, a balance
// request, an auto-renewal of one expiry) changes a licence once.
export const RENEWAL_KINDS = ["renewal", "upgrade"] as const;
export const RENEWAL_METHODS = ["card", "BTC", "LTC", "balance"] as const;

export const licenceRenewals = sqliteTable(
  "licence_renewals",
  {
    // Random: a batch knows its own row went in (and so that it won the claim) by this id.
    id: text("id").primaryKey(),
    claimKey: text("claim_key").notNull(),
    licenceId: integer("licence_id")
      .notNull()
      .references(() => licences.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: RENEWAL_KINDS }).notNull(),
    method: text("method", { enum: RENEWAL_METHODS }).notNull(),
    // Taken from a balance by the auto-renewal rather than paid by hand.
    auto: integer("auto", { mode: "boolean" }).notNull().default(false),
    // The order that paid ("shopify:<id>", "crypto:<number>", "reseller:<ledger id>") and its line.
    orderKey: text("order_key"),
    orderLineId: text("order_line_id"),
    unitIndex: integer("unit_index").notNull().default(0),
    fromPlan: text("from_plan", { enum: LICENCE_PLANS }).notNull(),
    toPlan: text("to_plan", { enum: LICENCE_PLANS }).notNull(),
    previousExpiresAt: integer("previous_expires_at"),
    expiresAt: integer("expires_at"),
    // The time the payment added to the licence (null when it moved to lifetime): what a refund takes back.
    addedMs: integer("added_ms"),
    previousEntitlements: text("previous_entitlements", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    // An upgrade renames the member's subscription; a refund gives the old name back.
    previousVariantTitle: text("previous_variant_title"),
    priceCents: integer("price_cents").notNull(),
    currency: text("currency").notNull(),
    createdAt: integer("created_at").notNull(),
    // A refund (or cancellation) took the time back; the claim names the run that did it.
    refundedAt: integer("refunded_at"),
    refundClaim: text("refund_claim"),
  },
  (t) => [
    uniqueIndex("licence_renewals_claim").on(t.claimKey),
    index("licence_renewals_licence").on(t.licenceId, t.createdAt),
    index("licence_renewals_order").on(t.orderKey, t.orderLineId, t.unitIndex),
    index("licence_renewals_created").on(t.createdAt),
    index("licence_renewals_refund").on(t.refundClaim),
    check("licence_renewals_kind", sql`${t.kind} in ('renewal', 'upgrade')`),
    check("licence_renewals_method", sql`${t.method} in ('card', 'BTC', 'LTC', 'balance')`),
  ],
);

// Reminders before and after a licence ends (decision 091): one row per licence, stage and the
// expiry it was about, written before the e-mail goes, so two cron runs send it once. A renewal
// moves the expiry, so the old expiry's reminders are never due again.
export const renewalReminders = sqliteTable(
  "renewal_reminders",
  {
    licenceId: integer("licence_id")
      .notNull()
      .references(() => licences.id, { onDelete: "cascade" }),
    // "before:<days>" or "after".
    stage: text("stage").notNull(),
    expiresAt: integer("expires_at").notNull(),
    sentAt: integer("sent_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.licenceId, t.stage, t.expiresAt] }), index("renewal_reminders_sent").on(t.sentAt)],
);

// Members who turned renewal reminders off (the Security page, or the e-mail's unsubscribe header).
export const reminderOptOuts = sqliteTable("reminder_opt_outs", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  optedOutAt: integer("opted_out_at").notNull(),
});

// Licences their owner asked to renew from their balance a day before they end (decision 091).
export const autoRenewals = sqliteTable(
  "auto_renewals",
  {
    licenceId: integer("licence_id")
      .primaryKey()
      .references(() => licences.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("auto_renewals_user").on(t.userId)],
);

// Payment disputes (chargebacks and inquiries) as Shopify reports them (decision 092). `outcome`
// is ours: open while Shopify's status is needs_response or under_review, then won or lost for
// good; the order's licences follow it.
export const DISPUTE_OUTCOMES = ["open", "won", "lost"] as const;
export const disputes = sqliteTable(
  "disputes",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id").notNull(),
    type: text("type").notNull(),
    reason: text("reason"),
    status: text("status").notNull(),
    outcome: text("outcome", { enum: DISPUTE_OUTCOMES }).notNull(),
    amount: text("amount"),
    currency: text("currency"),
    evidenceDueBy: integer("evidence_due_by"),
    initiatedAt: integer("initiated_at"),
    receivedAt: integer("received_at").notNull(),
    settledAt: integer("settled_at"),
  },
  (t) => [
    index("disputes_outcome").on(t.outcome, t.evidenceDueBy),
    index("disputes_order").on(t.orderId),
    check("disputes_outcome", sql`${t.outcome} in ('open', 'won', 'lost')`),
  ],
);

// Staff's blocklist (decision 093): e-mail addresses and domains, PCs, IP addresses and ranges,
// countries and Discord accounts, each with a reason and an optional expiry. A block stands while it
// is not lifted and not expired. An address or range is kept as its first and last address, each
// as 32 hex digits (IPv4 mapped into IPv6), so one indexed range comparison finds it.
export const BLOCK_KINDS = ["email", "domain", "hwid", "ip", "country", "discord"] as const;
export const blocks = sqliteTable(
  "blocks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind", { enum: BLOCK_KINDS }).notNull(),
    value: text("value").notNull(),
    rangeStart: text("range_start"),
    rangeEnd: text("range_end"),
    reason: text("reason").notNull(),
    expiresAt: integer("expires_at"),
    createdAt: integer("created_at").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    liftedAt: integer("lifted_at"),
    liftedBy: text("lifted_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("blocks_value").on(t.kind, t.value),
    index("blocks_range").on(t.rangeStart, t.rangeEnd),
    index("blocks_created").on(t.createdAt),
    check("blocks_kind", sql`${t.kind} in ('email', 'domain', 'hwid', 'ip', 'country', 'discord')`),
  ],
);

// Licences checked from too many places in a window (decision 093): one open flag per licence,
// with what was seen, until staff suspend, ban or dismiss it.
export const RISK_FLAG_STATES = ["open", "suspended", "banned", "dismissed"] as const;
export const licenceRiskFlags = sqliteTable(
  "licence_risk_flags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    licenceId: integer("licence_id")
      .notNull()
      .references(() => licences.id, { onDelete: "cascade" }),
    state: text("state", { enum: RISK_FLAG_STATES }).notNull(),
    addresses: integer("addresses").notNull(),
    countries: integer("countries").notNull(),
    // JSON: { windowStart, addresses: [masked], countries: [codes] }
    evidence: text("evidence").notNull(),
    flaggedAt: integer("flagged_at").notNull(),
    autoSuspended: integer("auto_suspended", { mode: "boolean" }).notNull().default(false),
    decidedAt: integer("decided_at"),
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("licence_risk_flags_open")
      .on(t.licenceId)
      .where(sql`${t.state} = 'open'`),
    index("licence_risk_flags_state").on(t.state, t.flaggedAt),
    check("licence_risk_flags_state", sql`${t.state} in ('open', 'suspended', 'banned', 'dismissed')`),
  ],
);

// The shop's fraud settings, one row (decision 093); absent, the defaults in app/lib/fraud.ts hold.
export const fraudSettings = sqliteTable(
  "fraud_settings",
  {
    id: integer("id").primaryKey(),
    windowHours: integer("window_hours").notNull(),
    flagAddresses: integer("flag_addresses").notNull(),
    flagCountries: integer("flag_countries").notNull(),
    // Null: no automatic suspension.
    suspendAddresses: integer("suspend_addresses"),
    suspendCountries: integer("suspend_countries"),
    holdRiskyOrders: integer("hold_risky_orders", { mode: "boolean" }).notNull().default(false),
    updatedAt: integer("updated_at").notNull(),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [check("fraud_settings_one_row", sql`${t.id} = 1`)],
);

// The chat's rooms (decision 094): which exist, who sees them and who posts in them (every member;
// every member reads and staff post; a product's live licence holders), and the rules each room
// enforces. Messages live in each room's Durable Object; this is the registry the Worker lists
// rooms from without waking them, and the rules it hands each room (decision 095 for retention).
// "general" and "announcements" are every shop's and are never archived.
export const chatRooms = sqliteTable(
  "chat_rooms",
  {
    slug: text("slug").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ROOM_KINDS }).notNull(),
    // The product whose licence holders the room is for (the title licences name); only for product rooms.
    product: text("product"),
    slowModeSeconds: integer("slow_mode_seconds").notNull().default(0),
    linkRule: text("link_rule", { enum: LINK_RULES }).notNull().default("allowed"),
    blockedWords: text("blocked_words", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    retentionDays: integer("retention_days").notNull().default(RETENTION_DEFAULT_DAYS),
    createdAt: integer("created_at").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    archivedAt: integer("archived_at"),
    archivedBy: text("archived_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    // One open room per product.
    uniqueIndex("chat_rooms_product")
      .on(t.product)
      .where(sql`${t.archivedAt} is null`),
    check("chat_rooms_product_kind", sql`(${t.kind} = 'product') = (${t.product} is not null)`),
    check("chat_rooms_slow_mode", sql`${t.slowModeSeconds} between 0 and 3600`),
    check("chat_rooms_retention", sql`${t.retentionDays} between 1 and 3650`),
  ],
);

// Staff's mutes and bans from the chat (not from the shop), chat-wide (decision 094). A mute always
// ends; a ban lasts until lifted. The Worker reads a member's open ones when their socket opens and
// hands them to the room, which refuses by them; staff's changes reach open sockets at once.
export const chatSanctions = sqliteTable(
  "chat_sanctions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["mute", "ban"] }).notNull(),
    // When a mute ends; null for a ban, which lasts until lifted.
    until: integer("until"),
    reason: text("reason").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    // Lifted by staff, or replaced by a newer one of the same kind.
    liftedAt: integer("lifted_at"),
    liftedBy: text("lifted_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("chat_sanctions_member").on(t.userId, t.kind, t.liftedAt),
    index("chat_sanctions_open").on(t.liftedAt, t.createdAt),
    check("chat_sanctions_mute_ends", sql`${t.kind} <> 'mute' or ${t.until} is not null`),
  ],
);

// Members' reports of chat messages, for staff's queue (decision 094). The message and the few
// around it are copied when it is reported, so the evidence stays whatever happens to the message.
export const chatReports = sqliteTable(
  "chat_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    room: text("room")
      .notNull()
      .references(() => chatRooms.slug),
    messageId: integer("message_id").notNull(),
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    authorName: text("author_name").notNull(),
    content: text("content").notNull(),
    messageAt: integer("message_at").notNull(),
    // The messages just before and after it: [{ id, username, content, createdAt }].
    context: text("context", { mode: "json" }).$type<{ id: number; username: string; content: string; createdAt: number }[]>().notNull(),
    reporterId: text("reporter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    createdAt: integer("created_at").notNull(),
    state: text("state", { enum: ["open", "actioned", "dismissed"] })
      .notNull()
      .default("open"),
    decidedBy: text("decided_by").references(() => users.id, { onDelete: "set null" }),
    decidedAt: integer("decided_at"),
    // What staff did: delete, mute, ban or dismiss.
    decision: text("decision"),
  },
  (t) => [uniqueIndex("chat_reports_once").on(t.room, t.messageId, t.reporterId), index("chat_reports_queue").on(t.state, t.createdAt)],
);

// When the Worker's background machinery last showed it is alive (decision 098): the cron's last
// run, the last health ping put on the job queue and the last one the queue's consumer handled.
// The Health page and the doctor read them.
export const workerHeartbeats = sqliteTable("worker_heartbeats", {
  name: text("name").primaryKey(),
  at: integer("at").notNull(),
});

// API tokens for resellers' and staff's own programs (decision 096): only a hash of the token is
// kept; the scopes are a space-separated list; a revoked or expired token opens nothing.
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    scopes: text("scopes").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    lastUsedAt: integer("last_used_at"),
    lastUsedIp: text("last_used_ip"),
  },
  (t) => [index("api_tokens_user").on(t.userId)],
);

// The seller API's Idempotency-Key records (decision 097): the first request with a key claims it,
// and the answer is written in the same transaction as what the request paid for, so a retry finds
// either nothing done (and may run) or the answer to give again. Keys are per account.
export const apiIdempotencyKeys = sqliteTable(
  "api_idempotency_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    // The operation and its body, hashed: the same key with another request is refused.
    requestHash: text("request_hash").notNull(),
    claimedAt: integer("claimed_at").notNull(),
    completedAt: integer("completed_at"),
    // What the request did, as JSON (the keys it made): a retry answers from it.
    outcome: text("outcome"),
  },
  (t) => [uniqueIndex("api_idempotency_keys_key").on(t.userId, t.key), index("api_idempotency_keys_claimed").on(t.claimedAt)],
);

// Staff's bulk changes that destroy (decision 104): deleting stock codes, revoking many keys, time
// added to a product's licences. A preview captures the exact rows the change will touch
// (`targets`, JSON); confirming acts on those rows only, and for an hour after it the change can be
// undone, once: every step is a conditional update of `state` that one caller wins, and the
// statements that act check that the caller's `claim` holds the row.
export const bulkChanges = sqliteTable(
  "bulk_changes",
  {
    // Random and unguessable: the preview's token.
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["stock-delete", "licence-revoke", "licence-time"] }).notNull(),
    state: text("state", { enum: ["previewed", "applied", "undone"] })
      .notNull()
      .default("previewed"),
    actorUserId: text("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    // What was asked (a variant, a product and its days, a reason), as JSON.
    scope: text("scope", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    // The rows the change touches, captured at the preview, with what undoing it needs (JSON).
    targets: text("targets").notNull(),
    count: integer("count").notNull(),
    // The caller that last won a step: statements acting on the targets run only while it holds.
    claim: text("claim"),
    createdAt: integer("created_at").notNull(),
    appliedAt: integer("applied_at"),
    undoUntil: integer("undo_until"),
    undoneAt: integer("undone_at"),
    undoneBy: text("undone_by").references(() => users.id, { onDelete: "set null" }),
    // What the change and its undo did, for the page to say (counts, rows skipped and why).
    outcome: text("outcome", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    index("bulk_changes_recent").on(t.kind, t.state, t.appliedAt),
    check("bulk_changes_state", sql`${t.state} in ('previewed', 'applied', 'undone')`),
  ],
);

// Webhooks out (decisions 101 and 102): the shop's own systems register endpoints and the events
// they want; each endpoint signs with its own secret, kept as written because signing needs it.
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    // The event types it receives, e.g. ["order.paid", "licence.banned"].
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    secret: text("secret").notNull(),
    // After a rotation the old secret still signs until this time, beside the new one.
    previousSecret: text("previous_secret"),
    previousSecretUntil: integer("previous_secret_until"),
    state: text("state", { enum: ["enabled", "disabled"] })
      .notNull()
      .default("enabled"),
    // Why it is disabled: by staff, or by the shop after it failed for a day.
    disabledReason: text("disabled_reason", { enum: ["staff", "failing"] }),
    disabledAt: integer("disabled_at"),
    // Since when every delivery has failed (null after a success): a day of it disables the endpoint.
    failingSince: integer("failing_since"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webhook_endpoints_created").on(t.createdAt)],
);

// One event for one endpoint: its body is fixed when the event happens, so every attempt sends the
// same bytes under the same webhook-id. Delivered from the job queue, retried on a schedule.
export const webhookMessages = sqliteTable(
  "webhook_messages",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    // What the event is about, once per endpoint (an order paid twice by retries is one event).
    eventKey: text("event_key").notNull(),
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
    state: text("state", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    // A delivery in flight holds the message until then, so two copies of its job never both send.
    claimedUntil: integer("claimed_until"),
  },
  (t) => [
    uniqueIndex("webhook_messages_event_once").on(t.endpointId, t.eventKey),
    index("webhook_messages_log").on(t.endpointId, t.createdAt),
    index("webhook_messages_due").on(t.state, t.nextAttemptAt),
  ],
);

// Every attempt at a message: what was sent and what came back (the first bytes of the answer).
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    messageId: text("message_id")
      .notNull()
      .references(() => webhookMessages.id, { onDelete: "cascade" }),
    at: integer("at").notNull(),
    url: text("url").notNull(),
    // The request's Standard Webhooks headers, as sent.
    requestHeaders: text("request_headers", { mode: "json" }).$type<Record<string, string>>().notNull(),
    // The answer's status, or null when none came (timeout, refused address, network error).
    status: integer("status"),
    response: text("response").notNull().default(""),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_message").on(t.messageId, t.at)],
);

// The development server's local receiver (/dev/webhooks): what arrived, as it arrived.
export const simulatedWebhookReceipts = sqliteTable("simulated_webhook_receipts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  url: text("url").notNull(),
  headers: text("headers", { mode: "json" }).$type<Record<string, string>>().notNull(),
  body: text("body").notNull(),
  receivedAt: integer("received_at").notNull(),
});

// The blocklist's version (decision 112): one row, given a new value by every change to `blocks`. The
// licence check reads it in its one statement and judges the caller against the standing PC,
// address and country blocks that its isolate keeps for that version, read again only when the
// version moves, so the check's statement does not carry the blocklist's subqueries.
export const blockListVersion = sqliteTable(
  "block_list_version",
  {
    id: integer("id").primaryKey(),
    version: integer("version").notNull(),
  },
  (t) => [check("block_list_version_one_row", sql`${t.id} = 1`)],
);
