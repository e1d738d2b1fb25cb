// A member's own data, as one JSON document (decision 099): every row the shop keeps about them,
// table by table, as stored, and their messages from the chat room's own storage. Which tables
// hold a member's rows, and how each row is known to be theirs, is the list below; every other
// table is named in SHOP_TABLES with why it holds none, and a test checks that the two lists
// cover the whole database, so a new table cannot be forgotten. Secrets that only prove who the
// member is (hashes of the password and of tokens, the two-factor secret) are left out.
import { type SQL, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import type { ChatMessage } from "~/lib/chat";
import { fail, ok, type Result } from "~/lib/result";
import { chatMessagesOf } from "../chat/chat-gateway.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";

interface Member {
  id: string;
  email: string;
}

interface MemberTable {
  /** Which rows are the member's. */
  rows: (member: Member) => SQL;
  /** Columns left out: secrets that prove who the member is, and nothing the member could use. */
  omit?: readonly string[];
}

const byAccount =
  (column: string) =>
  ({ id }: Member) =>
    sql`${sql.identifier(column)} = ${id}`;
const byAddress =
  (column: string) =>
  ({ email }: Member) =>
    sql`lower(${sql.identifier(column)}) = lower(${email})`;
const ownLicences = ({ email }: Member) => sql`select id from licences where lower(owner_email) = lower(${email})`;
const ofOwnCardOrders = ({ email }: Member) => sql`order_id in (select id from shopify_orders where lower(email) = lower(${email}))`;

/** Every table that holds rows about a member, and how each row is known to be theirs. */
export const MEMBER_TABLES = {
  users: { rows: byAccount("id"), omit: ["password_hash"] },
  profiles: { rows: byAccount("id") },
  user_roles: { rows: byAccount("user_id") },
  sessions: { rows: byAccount("user_id"), omit: ["id"] },
  password_reset_tokens: { rows: byAccount("user_id"), omit: ["token_hash"] },
  email_verification_tokens: { rows: byAccount("user_id"), omit: ["token_hash"] },
  passkeys: { rows: byAccount("user_id") },
  webauthn_challenges: { rows: byAccount("user_id"), omit: ["id", "challenge"] },
  totp_factors: { rows: byAccount("user_id"), omit: ["secret"] },
  recovery_codes: { rows: byAccount("user_id"), omit: ["code_hash"] },
  login_challenges: { rows: byAccount("user_id"), omit: ["id"] },
  oauth_accounts: { rows: byAccount("user_id") },
  // Failed-attempt counters whose key names the account (sign-in, codes, resets, reviews).
  auth_throttle: { rows: ({ id }) => sql`instr(key, ${id}) > 0` },
  shopify_orders: { rows: byAddress("email"), omit: ["mail_lease", "mail_lease_until"] },
  shopify_refunds: { rows: ofOwnCardOrders },
  shopify_order_variants: { rows: ofOwnCardOrders },
  crypto_orders: { rows: (m) => sql`user_id = ${m.id} or lower(customer_email) = lower(${m.email})` },
  manual_orders: { rows: (m) => sql`user_id = ${m.id} or lower(email) = lower(${m.email})` },
  demo_checkouts: { rows: (m) => sql`user_id = ${m.id} or lower(email) = lower(${m.email})` },
  backorders: { rows: byAddress("customer_email") },
  product_codes: { rows: byAddress("customer_email") },
  licences: { rows: byAddress("owner_email") },
  licence_resets: { rows: (m) => sql`licence_id in (${ownLicences(m)})` },
  licence_extensions: { rows: (m) => sql`licence_id in (${ownLicences(m)})` },
  // Renewals and upgrades they paid for, the reminders sent, and their automatic renewals.
  licence_renewals: { rows: (m) => sql`licence_id in (${ownLicences(m)})` },
  renewal_reminders: { rows: (m) => sql`licence_id in (${ownLicences(m)})` },
  reminder_opt_outs: { rows: byAccount("user_id") },
  auto_renewals: { rows: byAccount("user_id") },
  // A PC of theirs that staff banned.
  banned_hwids: { rows: ({ email }) => sql`hwid in (select hwid from licences where lower(owner_email) = lower(${email}))` },
  user_subscriptions: { rows: byAccount("user_id") },
  replacement_requests: { rows: byAccount("user_id") },
  reseller_accounts: { rows: byAccount("user_id") },
  reseller_keys: { rows: byAccount("user_id") },
  reseller_ledger: { rows: byAccount("user_id") },
  affiliates: { rows: byAccount("user_id") },
  affiliate_clicks: { rows: byAccount("affiliate_id") },
  affiliate_ledger: { rows: byAccount("affiliate_id") },
  product_reviews: { rows: byAccount("user_id") },
  review_moderation: { rows: byAccount("user_id") },
  discord_role_sync: { rows: byAccount("user_id") },
  discord_role_releases: { rows: byAccount("user_id") },
  mail_outbox: { rows: byAddress("to_address") },
  // Disputes of their card payments, their keys flagged as shared, blocks naming their address.
  disputes: { rows: ({ email }) => sql`order_id in (select id from shopify_orders where lower(email) = lower(${email}))` },
  licence_risk_flags: { rows: (m) => sql`licence_id in (${ownLicences(m)})` },
  blocks: { rows: (m) => sql`(kind = 'email' and lower(value) = lower(${m.email})) or created_by = ${m.id} or lifted_by = ${m.id}` },
  // Their mutes and bans in the chat, and reports they made or that name their messages.
  chat_sanctions: { rows: byAccount("user_id") },
  chat_reports: { rows: ({ id }) => sql`reporter_id = ${id} or author_id = ${id}` },
  // Their API tokens: names, scopes and last uses, never the hash that would let one be used.
  api_tokens: { rows: byAccount("user_id"), omit: ["token_hash"] },
  // The seller API's record of their paid requests (the keys each made), kept a day.
  api_idempotency_keys: { rows: byAccount("user_id") },
  // What they did, and what was done to their account.
  audit_log: { rows: ({ id }) => sql`actor_user_id = ${id} or subject = ${id}` },
} satisfies Record<string, MemberTable>;

/** Tables that hold no member's rows, and why. */
export const SHOP_TABLES = {
  entitlements: "what plans promise",
  plan_entitlements: "which plan includes what",
  releases: "the program's builds",
  bulk_changes: "staff's bulk changes and what undoing them needs (stock codes, licence ids, no addresses)",
  licence_compensations: "time staff added to a product's licences (the licences it reached are in licence_extensions)",
  wallet_cursors: "the shop's next crypto address per wallet",
  status_updates: "the public status page",
  stock_alerts: "low-stock thresholds",
  legal_pages: "the shop's legal pages",
  discord_settings: "the shop's Discord server",
  discord_role_rules: "which plan grants which Discord role",
  product_sales: "sales staff set on products",
  storefront_settings: "the product page's settings",
  // The signed bodies Shopify sent, until each is applied: the order it carried is in shopify_orders.
  webhook_deliveries: "Shopify's deliveries of orders (the orders are in shopify_orders)",
  failed_jobs: "background jobs that failed, for staff to retry",
  worker_heartbeats: "when the cron and the job queue last showed they are alive",
  fraud_settings: "the shop's thresholds for shared keys and risky orders",
  block_list_version: "a count of changes to the blocklist (the blocks are in blocks)",
  chat_rooms: "the chat's rooms and their rules (messages are in each room, and in the download's chatMessages)",
  simulated_payments: "the simulated chain of development",
  simulated_tips: "the simulated chain of development",
  simulated_discord_roles: "the simulated Discord of development",
  simulated_discord_members: "the simulated Discord of development",
  simulated_discord_faults: "the simulated Discord of development",
  // Events the shop sent its own systems: copies of what the orders, licences and reviews above hold.
  webhook_endpoints: "the shop's own systems that receive its events",
  webhook_messages: "events sent to the shop's own systems (copies of the orders, licences and reviews above)",
  webhook_attempts: "deliveries of those events",
  simulated_webhook_receipts: "the local webhook receiver of development",
} as const;

export type MemberTableName = keyof typeof MEMBER_TABLES;

export interface MemberData {
  shop: string;
  exportedAt: string;
  about: string;
  member: { id: string; email: string; username: string | null };
  /** Each table's rows about the member, as stored (times in milliseconds since 1970-01-01 UTC). */
  tables: Record<MemberTableName, Record<string, unknown>[]>;
  /** What the member wrote in the hub's chat, oldest first. */
  chatMessages: ChatMessage[];
}

const ABOUT =
  "Every record the shop keeps about you, table by table, as stored (times are milliseconds since 1970-01-01 UTC), " +
  "and your messages in the members' chat. Left out: the hashes that prove your password and sign-in links, and your two-factor secret.";

/**
 * The member's data, for them (`by` is the member) or for staff acting on their request; each
 * download is in the audit log, so a member can see who took a copy of their data.
 */
export async function exportMemberData(
  deps: { db: Db; env: Pick<Env, "CHAT_ROOM"> },
  by: { actorId: string; ip: string | null },
  userId: string,
  now = Date.now(),
): Promise<Result<MemberData>> {
  const data = await memberData(deps, userId, now);
  if (data.ok) await audit(deps.db, by.actorId, "privacy.export", userId, {}, by.ip);
  return data;
}

async function memberData(deps: { db: Db; env: Pick<Env, "CHAT_ROOM"> }, userId: string, now: number): Promise<Result<MemberData>> {
  const { db } = deps;
  const account = await db.get<{ id: string; email: string; username: string | null }>(
    sql`select u.id, u.email, p.username from users u left join profiles p on p.id = u.id where u.id = ${userId}`,
  );
  if (!account) return fail("not-found", "No such account");
  const member = { id: account.id, email: account.email };
  const names = Object.keys(MEMBER_TABLES) as MemberTableName[];
  const rows = await Promise.all(
    names.map((name) =>
      db.all<Record<string, unknown>>(sql`select * from ${sql.identifier(name)} where ${MEMBER_TABLES[name].rows(member)} order by rowid`),
    ),
  );
  const tables = Object.fromEntries(
    names.map((name, i) => {
      const table: MemberTable = MEMBER_TABLES[name];
      const omit = table.omit ?? [];
      return [name, rows[i]!.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !omit.includes(column))))];
    }),
  ) as MemberData["tables"];
  return ok({
    shop: BRAND,
    exportedAt: new Date(now).toISOString(),
    about: ABOUT,
    member: { ...member, username: account.username },
    tables,
    chatMessages: await chatMessagesOf(deps.env, deps.db, userId),
  });
}
