// Who may do what in the back office. Members have no role; staff are admins or support. The
// server checks these capabilities on every loader and action (see `requireCapability`); the
// sidebar reads the same table, so it shows only what the role may use.
export const ROLES = ["admin", "support"] as const;
export type Role = (typeof ROLES)[number];

export const CAPABILITIES = {
  // Entering the back office at all: its layout refuses anyone else before any page's own check,
  // so a page whose check was forgotten still shows a member nothing (decision 084).
  "back-office.enter": ["admin", "support"],
  // Orders, customers and the audit log: reading them, revealing a key (audited).
  "orders.view": ["admin", "support"],
  "customers.view": ["admin", "support"],
  "audit.view": ["admin", "support"],
  // Resending an order's key e-mail; resetting a licence's PC.
  "orders.resend": ["admin", "support"],
  "licences.reset": ["admin", "support"],
  // Revoking and replacing keys, cancelling crypto orders, handing out a key by hand.
  "orders.manage": ["admin"],
  // Stock (add, delete, thresholds), crypto fulfilment, failed jobs, uploads.
  "stock.manage": ["admin"],
  // Posting on the public status page, which may set a product's status (Undetected, Detected…).
  "status.post": ["admin"],
  "licences.ban": ["admin"],
  // Pausing and resuming a licence; adding time to every active licence of a product.
  "licences.time": ["admin"],
  "customers.ban": ["admin"],
  "customers.sessions": ["admin"],
  // A member's own data, at their request: downloading it for them, deleting their account (audited).
  "customers.privacy": ["admin"],
  "balances.credit": ["admin"],
  "roles.assign": ["admin"],
  "sales.view": ["admin"],
  // The affiliate programme: support sees every affiliate's figures and ledger; admins approve,
  // decline and pause affiliates and mark crypto payouts paid.
  "affiliates.view": ["admin", "support"],
  "affiliates.manage": ["admin"],
  // Product reviews: support and admins hide one with a reason, or show it again.
  "reviews.moderate": ["admin", "support"],
  // The chat: removing messages, muting and banning members from it, pins, the reports queue, and
  // its rooms (create, settings, archive).
  "chat.moderate": ["admin", "support"],
  // The product page's social proof: the recent-purchasers threshold and product sales.
  "promotions.manage": ["admin"],
  // The Health page: the live shop's settings and machinery checked, a test e-mail, a queue ping.
  "health.view": ["admin"],
  // The Terms of Service, Refund Policy and Privacy Policy.
  "legal.edit": ["admin"],
  export: ["admin"],
  // Releases: uploading, publishing and yanking; entitlements: defining them, attaching them to
  // plans, granting or removing one on a single licence.
  "releases.manage": ["admin"],
  "entitlements.manage": ["admin"],
  // Deciding a member's request for a replacement key (approval revokes a key and hands out another).
  "replacements.decide": ["admin"],
  // Discord roles that follow the licence: the guild, which role each plan grants, the health card.
  "discord.manage": ["admin"],
  // Fraud: support sees disputes (and exports their evidence), the blocklist and licences at risk;
  // admins block and lift, decide on a licence at risk and set the thresholds, and release held orders.
  "disputes.view": ["admin", "support"],
  "blocks.view": ["admin", "support"],
  "blocks.manage": ["admin"],
  "risk.view": ["admin", "support"],
  "risk.manage": ["admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Capability = keyof typeof CAPABILITIES;

export function can(role: Role | null | undefined, capability: Capability): boolean {
  return role != null && (CAPABILITIES[capability] as readonly Role[]).includes(role);
}

export const ROLE_LABEL: Record<Role, string> = { admin: "Admin", support: "Support" };
