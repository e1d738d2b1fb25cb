// The capability every staff action needs, by the form it comes from and the intent it names: one
// table. The route edge checks it before it reads anything else in the form
// (app/http/staff-action.server.ts), and the licence domain checks its row again.
import type { Capability } from "./roles";

export const STAFF_ACTIONS = {
  // An order's page: support reveals a key and resends the keys' e-mail (also to a corrected
  // address); revoking, replacing and cancelling are for admins.
  order: {
    reveal: "orders.view",
    resend: "orders.resend",
    "correct-email": "orders.resend",
    revoke: "orders.manage",
    replace: "orders.manage",
    cancel: "orders.manage",
    // A paid order held for review: its keys go out.
    release: "orders.manage",
  },
  // The order list: a key handed out by hand.
  "manual-order": { manual: "orders.manage" },
  // A customer's page.
  customer: {
    ban: "customers.ban",
    unban: "customers.ban",
    "end-sessions": "customers.sessions",
    credit: "balances.credit",
    role: "roles.assign",
    // Blocking the customer with their known PCs, addresses and e-mails, in one confirmation.
    "block-customer": "blocks.manage",
    "delete-account": "customers.privacy",
  },
  // The Blocklists page: a block added, or lifted.
  blocks: { block: "blocks.manage", lift: "blocks.manage" },
  // Licences at risk: a flagged licence suspended, banned or dismissed; the detection's thresholds.
  risk: { suspend: "risk.manage", ban: "risk.manage", dismiss: "risk.manage", settings: "risk.manage" },
  // The licence page: support resets PCs; bans, pauses and added time are for admins.
  licence: {
    "reset-hwid": "licences.reset",
    "ban-key": "licences.ban",
    "unban-key": "licences.ban",
    "ban-hwid": "licences.ban",
    "unban-hwid": "licences.ban",
    pause: "licences.time",
    resume: "licences.time",
    compensate: "licences.time",
    "grant-entitlement": "entitlements.manage",
    "remove-entitlement": "entitlements.manage",
  },
  // The Manage Codes page's cards: stock, the crypto queue (cancelling an order is an order's
  // matter) and the failed fulfilment jobs.
  stock: { add: "stock.manage", delete: "stock.manage", threshold: "stock.manage", "clear-threshold": "stock.manage" },
  "crypto-queue": { fulfil: "stock.manage", resolve: "stock.manage", cancel: "orders.manage" },
  "failed-jobs": { retry: "stock.manage" },
  // The Releases page: a new release's upload, then publishing, yanking or discarding it.
  release: { start: "releases.manage", publish: "releases.manage", yank: "releases.manage", discard: "releases.manage" },
  // The Entitlements page: define one and the plans that include it.
  entitlement: { save: "entitlements.manage" },
  // The Replacements page: a member's request for a key banned in game, approved or declined.
  replacement: { approve: "replacements.decide", decline: "replacements.decide" },
  // The Reviews page: hiding a review with a reason, or showing it again.
  reviews: { hide: "reviews.moderate", unhide: "reviews.moderate" },
  // The chat moderation page and the moderator's menu in the hub's chat: messages, members, pins
  // and reports; and the page's rooms.
  chat: {
    delete: "chat.moderate",
    purge: "chat.moderate",
    mute: "chat.moderate",
    unmute: "chat.moderate",
    ban: "chat.moderate",
    unban: "chat.moderate",
    pin: "chat.moderate",
    unpin: "chat.moderate",
    dismiss: "chat.moderate",
  },
  "chat-rooms": { create: "chat.moderate", settings: "chat.moderate", archive: "chat.moderate", restore: "chat.moderate" },
  // The Promotions page: the recent-purchasers threshold and each product's sale.
  promotions: { threshold: "promotions.manage", sale: "promotions.manage", "end-sale": "promotions.manage" },
  // The Health page: a test e-mail to oneself, a ping on the job queue.
  health: { "test-mail": "health.view", "ping-queue": "health.view" },
  // The legal pages' editor.
  legal: { save: "legal.edit" },
  // The affiliates page: decisions on affiliates, and crypto payouts sent.
  affiliates: {
    approve: "affiliates.manage",
    decline: "affiliates.manage",
    pause: "affiliates.manage",
    resume: "affiliates.manage",
    "mark-paid": "affiliates.manage",
  },
  // The Discord page: the guild and the role rules.
  discord: { "discord-guild": "discord.manage", "discord-rule-add": "discord.manage", "discord-rule-remove": "discord.manage" },
} as const satisfies Record<string, Record<string, Capability>>;

export type StaffForm = keyof typeof STAFF_ACTIONS;
export type StaffIntent<F extends StaffForm> = keyof (typeof STAFF_ACTIONS)[F] & string;

/**
 * What `intent` on `form` needs. An intent the form does not have needs every capability the form's
 * intents need, so a role that may not do all of them learns nothing from a made-up one.
 */
export function capabilitiesFor(form: StaffForm, intent: unknown): Capability[] {
  const intents: Record<string, Capability> = STAFF_ACTIONS[form];
  if (typeof intent === "string" && Object.hasOwn(intents, intent)) return [intents[intent]!];
  return [...new Set(Object.values(intents))];
}
