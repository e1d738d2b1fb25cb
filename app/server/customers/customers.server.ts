// The back office's view of customers: finding them (by e-mail, username, a key they hold or the
// PC a key is bound to) and everything about one of them. A buyer who paid by card without an
// account is a customer too, known by e-mail alone. Every search is an indexed lookup or an
// indexed range (prefixes compare as ranges over lower(...) indexes), so it stays fast however
// many accounts there are.
import { and, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { union } from "drizzle-orm/sqlite-core";
import { type LicenceView, maskKey } from "~/lib/licences";
import type { Role } from "~/lib/roles";
import type { CustomerSearchInput } from "~/lib/schemas/customers";
import { sessionIdFrom, sessionsRead } from "../accounts/session.server";
import { twoFactorStatusRead } from "../accounts/two-factor.server";
import { subscriptionsRead } from "../licences/subscriptions.server";
import { licencesOf, licencesRead } from "../licences/licences.server";
import { licenceHistoryRead } from "../licences/licence-renewals.server";
import { orderName } from "../platform/db/stored-orders.server";
import type { LicenceHistoryEntry } from "~/lib/renewals";
import { resellerBalanceRead } from "../resellers/reseller-balance.server";
import { read, readAlone, readTogether } from "../platform/db/reads.server";
import type { Db } from "../platform/db/client.server";
import {
  cryptoOrders,
  licences,
  manualOrders,
  orderIndex,
  passkeys,
  productCodes,
  profiles,
  resellerKeys,
  shopifyOrders,
  userRoles,
  users,
} from "../platform/db/schema.server";
import type { Caller } from "../platform/caller.server";

export const CUSTOMERS_PER_PAGE = 25;
/** A customer's page lists this many orders; the orders list filtered by e-mail has the rest. */
export const ORDERS_ON_PAGE = 50;

export interface CustomerRow {
  /** Null for a buyer without an account (known by e-mail alone). */
  id: string | null;
  email: string;
  username: string | null;
  role: Role | null;
  bannedAt: number | null;
  joinedAt: number | null;
}

const accountColumns = {
  id: users.id,
  email: users.email,
  username: profiles.username,
  role: userRoles.role,
  bannedAt: users.bannedAt,
  banReason: users.banReason,
  verifiedAt: users.emailVerifiedAt,
  joinedAt: users.createdAt,
  deletedAt: users.deletedAt,
};

/** Accounts with their profile and role, newest first. */
function accounts(db: Db, where: SQL | undefined, limit: number) {
  return db
    .select(accountColumns)
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .leftJoin(userRoles, eq(userRoles.userId, users.id))
    .where(where)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(limit);
}

// Past every character an e-mail or username can hold: `lower(x) >= q and lower(x) < q || END` is
// "starts with q", in the form an index on lower(x) serves (LIKE would not use it).
const END = "\u{10FFFF}";
const startsWith = (column: SQL, prefix: string) => sql`${column} >= ${prefix} and ${column} < ${prefix + END}`;

/** Distinct lower-cased e-mails of buyers (any order source) starting with `prefix`. */
async function buyerEmails(db: Db, prefix: string, limit: number): Promise<string[]> {
  const sources = [
    [shopifyOrders, sql`lower(${shopifyOrders.email})`],
    [cryptoOrders, sql`lower(${cryptoOrders.customerEmail})`],
    [manualOrders, sql`lower(${manualOrders.email})`],
  ] as const;
  const found = await Promise.all(
    sources.map(([table, email]) =>
      db
        .selectDistinct({ email: sql<string>`${email}` })
        .from(table)
        .where(startsWith(email, prefix))
        .limit(limit),
    ),
  );
  return found.flat().map((row) => row.email);
}

/** E-mails (lower-cased) a key or a hardware id leads to: the key's buyer or owner, the PC's owners. */
async function emailsByKeyOrPc(db: Db, value: string, limit: number): Promise<{ emails: string[]; userIds: string[] }> {
  const [codes, licenceOwners, pcOwners, resold] = await Promise.all([
    db.select({ email: productCodes.customerEmail }).from(productCodes).where(eq(productCodes.code, value)).limit(1),
    db.select({ email: licences.ownerEmail }).from(licences).where(eq(licences.key, value)).limit(1),
    db.selectDistinct({ email: licences.ownerEmail }).from(licences).where(eq(licences.hwid, value)).limit(limit),
    db.select({ userId: resellerKeys.userId }).from(resellerKeys).where(eq(resellerKeys.keyCode, value)).limit(1),
  ]);
  const emails = [...codes, ...licenceOwners, ...pcOwners].flatMap(({ email }) => (email ? [email.toLowerCase()] : []));
  return { emails, userIds: resold.map((r) => r.userId) };
}

/**
 * Staff: customers matching `q` — an e-mail or username (exact or by its start), a key (stocked,
 * reseller or licence) or a hardware id — accounts newest first, then buyers without an account.
 * With no `q`, every account, newest first, a page at a time after `cursor`.
 */
export async function searchCustomers(
  db: Db,
  { q, cursor }: CustomerSearchInput,
): Promise<{ rows: CustomerRow[]; nextCursor: string | null }> {
  if (!q) {
    const [at, id] = cursor ? [Number(cursor.slice(0, cursor.indexOf("."))), cursor.slice(cursor.indexOf(".") + 1)] : [];
    const after = at === undefined ? undefined : or(lt(users.createdAt, at), and(eq(users.createdAt, at), lt(users.id, id!)));
    const rows = await accounts(db, after, CUSTOMERS_PER_PAGE + 1);
    const more = rows.length > CUSTOMERS_PER_PAGE;
    const page = rows.slice(0, CUSTOMERS_PER_PAGE);
    const last = page.at(-1);
    return { rows: page, nextCursor: more && last ? `${last.joinedAt}.${last.id}` : null };
  }
  const folded = q.toLowerCase();
  const limit = CUSTOMERS_PER_PAGE;
  const [byEmail, byUsername, keyed, buyers] = await Promise.all([
    accounts(db, startsWith(sql`lower(${users.email})`, folded), limit),
    accounts(db, startsWith(sql`lower(${profiles.username})`, folded), limit),
    emailsByKeyOrPc(db, q, limit),
    buyerEmails(db, folded, limit),
  ]);
  const emails = [...new Set([...keyed.emails, ...buyers])];
  const [byKeyEmail, byKeyUser] = await Promise.all([
    emails.length ? accounts(db, inArray(sql`lower(${users.email})`, emails), emails.length) : [],
    keyed.userIds.length ? accounts(db, inArray(users.id, keyed.userIds), keyed.userIds.length) : [],
  ]);
  const found = new Map<string, Awaited<typeof byEmail>[number]>();
  for (const row of [...byEmail, ...byUsername, ...byKeyEmail, ...byKeyUser]) found.set(row.id, row);
  const held = new Set([...found.values()].map((row) => row.email.toLowerCase()));
  const accountRows = [...found.values()].sort((a, b) => b.joinedAt - a.joinedAt || (a.id < b.id ? 1 : -1));
  const buyerRows: CustomerRow[] = emails
    .filter((email) => !held.has(email))
    .sort()
    .map((email) => ({ id: null, email, username: null, role: null, bannedAt: null, joinedAt: null }));
  return { rows: [...accountRows, ...buyerRows].slice(0, 2 * limit), nextCursor: null };
}

const orderFields = {
  key: orderIndex.key,
  source: orderIndex.source,
  reference: orderIndex.reference,
  number: orderIndex.number,
  state: orderIndex.state,
  totalCents: orderIndex.totalCents,
  currency: orderIndex.currency,
  method: orderIndex.method,
  createdAt: orderIndex.createdAt,
};

/**
 * The newest orders of every source placed with `email` (or, for an account, by it). An account's
 * are the union of two reads, each through its own indexes: one condition `email or user` would
 * leave the Shopify orders (which hold no account) no index, and read every one of them.
 */
function ordersRead(db: Db, email: string, userId: string | null) {
  const byEmail = db.select(orderFields).from(orderIndex).where(eq(orderIndex.emailKey, email.toLowerCase()));
  const orders = userId ? union(byEmail, db.select(orderFields).from(orderIndex).where(eq(orderIndex.userId, userId))) : byEmail;
  return read([orders.orderBy(desc(orderIndex.createdAt)).limit(ORDERS_ON_PAGE + 1)], ([rows]) => ({
    orders: rows.slice(0, ORDERS_ON_PAGE),
    moreOrders: rows.length > ORDERS_ON_PAGE,
  }));
}

const masked = (licence: LicenceView): LicenceView => ({ ...licence, key: maskKey(licence.key) });

/** A licence as the customer page shows it: masked, with its history (bought, extended, upgraded, each with its order). */
export type CustomerLicence = LicenceView & { history: LicenceHistoryEntry[] };

/** Where an order key ("shopify:1001", "reseller:12") leads, and the name staff know the order by. */
function orderOf(key: string | null, name: string | null): LicenceHistoryEntry["order"] {
  if (!key) return null;
  const at = key.indexOf(":");
  const source = key.slice(0, at);
  const reference = key.slice(at + 1);
  const fallback = source === "reseller" ? `R-${reference}` : source === "admin" ? `M-${reference}` : reference;
  return { key, source, reference, name: name ?? fallback };
}

/** The order a licence's own sale belongs to: its card, crypto or manual order, or the reseller purchase of its key. */
function saleKey(row: { orderId: string | null; purchaseId: number | null }): string | null {
  if (row.purchaseId !== null) return `reseller:${row.purchaseId}`;
  if (!row.orderId) return null;
  if (row.orderId.startsWith("CRYPTO-")) return `crypto:${row.orderId}`;
  if (row.orderId.startsWith("M-")) return `admin:${row.orderId.slice(2)}`;
  return `shopify:${row.orderId}`;
}

/** Each licence's history, oldest first: its sale, then every renewal and upgrade (decision 090). */
async function withHistory(db: Db, held: LicenceView[]): Promise<CustomerLicence[]> {
  const ids = held.map((l) => l.id);
  if (ids.length === 0) return [];
  const sales = db
    .select({
      id: licences.id,
      plan: licences.plan,
      createdAt: licences.createdAt,
      orderId: licences.orderId,
      orderName: orderName(licences.orderId),
      purchaseId: resellerKeys.purchaseId,
    })
    .from(licences)
    .leftJoin(resellerKeys, eq(resellerKeys.id, licences.resellerKeyId))
    .where(inArray(licences.id, ids));
  const [soldAs, renewals] = await readTogether(db, [
    read([sales], ([rows]) => new Map(rows.map((sale) => [sale.id, sale]))),
    licenceHistoryRead(db, ids),
  ]);
  const names = await orderNames(
    db,
    [...renewals.values()].flat().flatMap((r) => (r.orderKey?.startsWith("shopify:") ? [r.orderKey.slice(8)] : [])),
  );
  return held.map((licence) => {
    const sale = soldAs.get(licence.id);
    const rows = renewals.get(licence.id) ?? [];
    const bought: LicenceHistoryEntry = {
      kind: "bought",
      at: sale?.createdAt ?? 0,
      plan: rows[0]?.fromPlan ?? licence.plan,
      fromPlan: null,
      expiresAt: null,
      priceCents: null,
      currency: null,
      method: null,
      auto: false,
      refundedAt: null,
      order: sale ? orderOf(saleKey(sale), sale.orderName) : null,
    };
    const later = rows.map((row): LicenceHistoryEntry => ({
      kind: row.kind,
      at: row.createdAt,
      plan: row.toPlan,
      fromPlan: row.fromPlan,
      expiresAt: row.expiresAt,
      priceCents: row.priceCents,
      currency: row.currency,
      method: row.method,
      auto: row.auto,
      refundedAt: row.refundedAt,
      order: orderOf(row.orderKey, row.orderKey?.startsWith("shopify:") ? (names.get(row.orderKey.slice(8)) ?? null) : null),
    }));
    return { ...licence, history: [bought, ...later] };
  });
}

/** Shopify orders' names ("#1001") by id. */
async function orderNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: shopifyOrders.id, name: shopifyOrders.name })
    .from(shopifyOrders)
    .where(inArray(shopifyOrders.id, ids));
  return new Map(rows.flatMap((row) => (row.name ? [[row.id, row.name] as const] : [])));
}

/** The licences held under `email`, keys masked, PCs shortened, each with its history. */
async function maskedLicences(db: Db, email: string, cooldownMs: number): Promise<CustomerLicence[]> {
  return withHistory(db, [...(await licencesOf(db, { email }, cooldownMs)).values()].map(masked));
}

/**
 * Staff: everything about one account, or null when there is no such account. After the account
 * itself, its orders, subscriptions, licences, sessions, security and reseller balance are read in
 * one batch (one round trip), and the licences' histories in another.
 */
export async function customerAccount(db: Db, id: string, caller: Caller, cooldownMs: number) {
  const [[profile], current] = await Promise.all([accounts(db, eq(users.id, id), 1), sessionIdFrom(caller)]);
  if (!profile) return null;
  const [orders, subscriptions, held, sessions, twoFactor, passkeyCount, reseller] = await readTogether(db, [
    ordersRead(db, profile.email, id),
    subscriptionsRead(db, id),
    licencesRead(db, profile, cooldownMs),
    sessionsRead(db, id, current),
    twoFactorStatusRead(db, id),
    read(
      [
        db
          .select({ n: sql<number>`count(*)` })
          .from(passkeys)
          .where(eq(passkeys.userId, id)),
      ],
      ([[row]]) => row?.n ?? 0,
    ),
    resellerBalanceRead(db, id),
  ]);
  return {
    profile,
    ...orders,
    // Each subscription with its key's licence, so its expiry reads as the member reads it.
    subscriptions: subscriptions.map(({ code, ...subscription }) => {
      const licence = code ? held.get(code) : undefined;
      return { ...subscription, code: code && maskKey(code), licence: licence ? masked(licence) : null };
    }),
    licences: await withHistory(db, [...held.values()].map(masked)),
    sessions,
    security: { ...twoFactor, passkeys: passkeyCount },
    reseller,
  };
}

/** Staff: a buyer known by e-mail alone — the account holding it (if any), their orders and keys. */
export async function customerByEmail(db: Db, email: string, cooldownMs: number) {
  const account = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
    .get();
  if (account) return { accountId: account.id } as const;
  const [orders, held] = await Promise.all([readAlone(db, ordersRead(db, email, null)), maskedLicences(db, email, cooldownMs)]);
  return { accountId: null, email: email.toLowerCase(), ...orders, licences: held } as const;
}
