// The seller API's operations (decision 097): what a token's holder may do to keys and with their
// balance. A reseller reaches the keys they generated; staff reach any key, each operation by the
// capability the back office asks for it. Every operation is the panel's or the back office's own
// function (the same rules, the same audit entries, naming the token), never a second path.
import { and, desc, eq, inArray, lt, type SQL, sql } from "drizzle-orm";
import { formatUsd } from "~/lib/format";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import { type ApiScope, staffScope } from "~/lib/schemas/api-tokens";
import type { CreateKeysInput, PageInput } from "~/lib/schemas/seller-api";
import type { TokenHolder } from "../accounts/api-tokens.server";
import type { Catalogue } from "../catalogue/catalogue.server";
import { revokeOneKey } from "../keys/revoke.server";
import { auditLicence } from "../licences/licence-audit.server";
import { type ApiVia, manageLicence, resetOwnHwid, suspendSoldKey } from "../licences/licences.server";
import { licenceState } from "../licences/validation.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { licences, resellerKeys } from "../platform/db/schema.server";
import type { MailingDeps } from "../platform/mail.server";
import { extendSoldKey } from "../renewals/balance-renewals.server";
import { ensureResellerAccount, ledgerPage } from "../resellers/reseller-balance.server";
import { generateKeys } from "../resellers/reseller-panel.server";
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, requestHash } from "./idempotency.server";

export interface SellerDeps extends MailingDeps {
  catalogue: Catalogue;
  /** The owner's cooldown between their own PC resets (the panel's). */
  cooldownMs: number;
}

/** Who calls, through which token, from where. */
export interface SellerCall {
  holder: TokenHolder;
  ip: string | null;
}

type LicenceRow = typeof licences.$inferSelect;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A key as the API shows it: never the bound PC's id, only whether one is bound. */
function keyView(row: LicenceRow, now = Date.now()) {
  return {
    key: row.key,
    product: row.product,
    plan: row.plan,
    state: licenceState(row, now),
    activated: row.activatedAt !== null,
    pcBound: row.hwid !== null,
    createdAt: iso(row.createdAt),
    activatedAt: iso(row.activatedAt),
    expiresAt: iso(row.expiresAt),
  };
}
type SellerKeyView = ReturnType<typeof keyView>;

const via = ({ holder }: SellerCall): ApiVia => ({ via: `API token "${holder.token.name}"` });

function needScope({ holder }: SellerCall, scope: ApiScope): ReturnType<typeof fail> | null {
  return holder.token.scopes.includes(scope) ? null : fail("forbidden", `This token does not have the ${scope} scope`);
}

/** The keys the holder generated in their reseller panel. */
const generatedBy = (userId: string) =>
  sql`${licences.resellerKeyId} in (select ${resellerKeys.id} from ${resellerKeys} where ${resellerKeys.userId} = ${userId})`;

/** Whether the holder reaches every key for `scope` (staff), not only the keys they generated. */
const reachesAll = ({ holder }: SellerCall, scope: ApiScope) => staffScope(holder.viewer.role, scope);

/**
 * The key `key` if the call reaches it for `scope`: one the holder generated, or (staff) any key.
 * Any other answers like a missing one, so a token learns nothing of another reseller's keys.
 */
async function keyInReach(db: Db, call: SellerCall, key: string, scope: ApiScope): Promise<Result<{ row: LicenceRow; mine: boolean }>> {
  const refused = needScope(call, scope);
  if (refused) return refused;
  const found = await db
    .select({ row: licences, mine: sql<number>`${generatedBy(call.holder.viewer.id)}` })
    .from(licences)
    .where(eq(licences.key, key))
    .get();
  if (found && (found.mine || reachesAll(call, scope))) return ok({ row: found.row, mine: Boolean(found.mine) });
  return fail("not-found", "No such key");
}

async function viewsOf(db: Db, keys: string[], now: number): Promise<SellerKeyView[]> {
  if (keys.length === 0) return [];
  const rows = await db.select().from(licences).where(inArray(licences.key, keys));
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return keys.flatMap((key) => {
    const row = byKey.get(key);
    return row ? [keyView(row, now)] : [];
  });
}

type CreatedKeys = { keys: string[]; chargedCents: number };

/**
 * Keys for a plan from the reseller's balance at their price, once per Idempotency-Key: the
 * purchase and the key's record of it are one transaction, and a retry (even ten at once) answers
 * with the same keys and charges nothing more.
 */
export async function createKeys(
  deps: SellerDeps,
  call: SellerCall,
  input: CreateKeysInput,
  idempotencyKey: string,
  now = Date.now(),
): Promise<Result<{ keys: SellerKeyView[]; chargedCents: number; replayed: boolean }>> {
  const refused = needScope(call, "keys:create");
  if (refused) return refused;
  const { db } = deps;
  const { viewer } = call.holder;
  const claim = await claimIdempotencyKey<CreatedKeys>(
    db,
    viewer.id,
    idempotencyKey,
    await requestHash(["create-keys", input.plan, input.quantity]),
    now,
  );
  if (!claim.ok) return claim;
  if (claim.value.kind === "done") {
    const { keys, chargedCents } = claim.value.outcome;
    return ok({ keys: await viewsOf(db, keys, now), chargedCents, replayed: true });
  }
  const claimId = claim.value.id;
  const made = await generateKeys(
    db,
    deps.catalogue,
    viewer,
    { quantity: input.quantity, keyType: input.plan },
    now,
    ({ keys, totalCents }) => [completeIdempotencyKey(db, claimId, { keys, chargedCents: totalCents } satisfies CreatedKeys, now)],
  ).catch(async (error: unknown) => {
    await releaseIdempotencyKey(db, claimId);
    throw error;
  });
  if (!made.ok) {
    await releaseIdempotencyKey(db, claimId);
    return made;
  }
  const { keys, totalCents } = made.value;
  await audit(
    db,
    viewer.id,
    "seller-api.create-keys",
    viewer.id,
    { count: keys.length, plan: input.plan, charged: formatUsd(totalCents), ...via(call) },
    call.ip,
  );
  return ok({ keys: await viewsOf(db, keys, now), chargedCents: totalCents, replayed: false });
}

/** A page of the keys the call reaches, newest first: the holder's, or (staff) every key. */
export async function listKeys(db: Db, call: SellerCall, page: PageInput, now = Date.now()) {
  const refused = needScope(call, "keys:read");
  if (refused) return refused;
  const conditions: (SQL | undefined)[] = [
    reachesAll(call, "keys:read") ? undefined : generatedBy(call.holder.viewer.id),
    page.cursor === undefined ? undefined : lt(licences.id, page.cursor),
  ];
  const rows = await db
    .select()
    .from(licences)
    .where(and(...conditions))
    .orderBy(desc(licences.id))
    .limit(page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return ok({ keys: shown.map((row) => keyView(row, now)), nextCursor: rows.length > page.limit && last ? String(last.id) : null });
}

export async function readKey(db: Db, call: SellerCall, key: string, now = Date.now()): Promise<Result<SellerKeyView>> {
  const found = await keyInReach(db, call, key, "keys:read");
  return found.ok ? ok(keyView(found.value.row, now)) : found;
}

/** The key as it is after a change. */
async function keyNow(db: Db, id: number, now: number): Promise<SellerKeyView> {
  return keyView((await db.select().from(licences).where(eq(licences.id, id)).get())!, now);
}

/**
 * Extends a key the holder generated by its plan's term, from their balance at their price (the
 * panel's Extend), once per Idempotency-Key. Staff add time to other keys in the back office.
 */
export async function extendKey(
  deps: SellerDeps,
  call: SellerCall,
  key: string,
  idempotencyKey: string,
  now = Date.now(),
): Promise<Result<{ key: SellerKeyView; chargedCents: number; replayed: boolean }>> {
  const { db } = deps;
  const found = await keyInReach(db, call, key, "keys:manage");
  if (!found.ok) return found;
  const { row, mine } = found.value;
  if (!mine) return fail("forbidden", "Only keys you generated are extended from your balance");
  const { viewer } = call.holder;
  const claim = await claimIdempotencyKey<{ chargedCents: number }>(db, viewer.id, idempotencyKey, await requestHash(["extend", key]), now);
  if (!claim.ok) return claim;
  if (claim.value.kind === "done")
    return ok({ key: await keyNow(db, row.id, now), chargedCents: claim.value.outcome.chargedCents, replayed: true });
  const claimId = claim.value.id;
  // The renewal's own claim (per key and request) makes the payment once even if recording the
  // answer below fails: a retry then finds the extension already paid.
  const extended = await extendSoldKey(deps, deps.catalogue, viewer, row.id, `api:${viewer.id}:${idempotencyKey}`, now).catch(
    async (error: unknown) => {
      await releaseIdempotencyKey(db, claimId);
      throw error;
    },
  );
  if (!extended.ok) {
    await releaseIdempotencyKey(db, claimId);
    return extended;
  }
  await completeIdempotencyKey(db, claimId, { chargedCents: extended.value.cents }, now);
  return ok({ key: await keyNow(db, row.id, now), chargedCents: extended.value.cents, replayed: !extended.value.fresh });
}

/** Frees the key's PC: the reseller under the owner's cooldown (the panel's Reset PC), staff as on the licence page. */
export async function resetKeyPc(deps: SellerDeps, call: SellerCall, key: string, now = Date.now()): Promise<Result<SellerKeyView>> {
  const { db } = deps;
  const found = await keyInReach(db, call, key, "keys:manage");
  if (!found.ok) return found;
  const { row, mine } = found.value;
  const { viewer } = call.holder;
  const reset = mine
    ? await resetOwnHwid(db, viewer, row.id, deps.cooldownMs, call.ip, now, via(call))
    : await manageLicence(db, viewer, { intent: "reset-hwid", licenceId: row.id }, call.ip, now, via(call));
  return reset.ok ? ok(await keyNow(db, row.id, now)) : reset;
}

/**
 * Suspends a key (it answers SUSPENDED), or lifts the suspension: the reseller's own suspension
 * of a key they generated (its clock runs on), staff's pause of any key (its clock stands still).
 */
export async function suspendKey(
  deps: SellerDeps,
  call: SellerCall,
  key: string,
  suspend: boolean,
  now = Date.now(),
): Promise<Result<SellerKeyView>> {
  const { db } = deps;
  const found = await keyInReach(db, call, key, "keys:manage");
  if (!found.ok) return found;
  const { row, mine } = found.value;
  const { viewer } = call.holder;
  const changed = mine
    ? await suspendSoldKey(db, viewer, row.id, suspend, call.ip, now, via(call))
    : await manageLicence(
        db,
        viewer,
        suspend
          ? { intent: "pause", licenceId: row.id, reason: `Suspended through the API (${call.holder.token.name})` }
          : { intent: "resume", licenceId: row.id },
        call.ip,
        now,
        via(call),
      );
  return changed.ok ? ok(await keyNow(db, row.id, now)) : changed;
}

/**
 * Revokes a key for good, through the key module as the back office does. A reseller's key is paid
 * when generated and the panel refunds none, so revoking moves no money. Staff need the
 * capability that revokes keys on an order's page.
 */
export async function revokeKey(deps: SellerDeps, call: SellerCall, key: string, now = Date.now()): Promise<Result<SellerKeyView>> {
  const { db } = deps;
  const found = await keyInReach(db, call, key, "keys:manage");
  if (!found.ok) return found;
  const { row, mine } = found.value;
  const { viewer } = call.holder;
  if (!mine && !can(viewer.role, "orders.manage")) return fail("forbidden", "Your role may not revoke keys");
  if (!(await revokeOneKey(db, { codeId: row.productCodeId, key: row.key }, row.orderId, now))) {
    return fail("conflict", "This key is already revoked");
  }
  await auditLicence(db, viewer.id, mine ? "licence.seller-revoke" : "licence.revoke", row, { ...via(call) }, call.ip);
  return ok(await keyNow(db, row.id, now));
}

/** The holder's reseller balance, in cents of US dollars, and their discount. */
export async function balanceOf(db: Db, call: SellerCall, now = Date.now()) {
  const refused = needScope(call, "balance:read");
  if (refused) return refused;
  const account = await ensureResellerAccount(db, call.holder.viewer.id, now);
  return ok({ balanceCents: account.balanceCents, currency: "USD", discountPercent: account.discountRate });
}

/** A page of the holder's balance history, newest first. */
export async function balanceHistory(db: Db, call: SellerCall, page: PageInput) {
  const refused = needScope(call, "balance:read");
  if (refused) return refused;
  const rows = await ledgerPage(db, call.holder.viewer.id, page.cursor ?? null, page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return ok({
    entries: shown.map((entry) => ({ ...entry, createdAt: iso(entry.createdAt) })),
    nextCursor: rows.length > page.limit && last ? String(last.id) : null,
  });
}
