// The seller API through the Worker, as a reseller's bot or a staff member's script calls it: a
// token's scopes on every operation, revoked and expired tokens, two resellers kept apart on every
// operation, key creation once per Idempotency-Key under concurrent retries, the per-token limit.
import { exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { API_SCOPES, type ApiScope, scopeField } from "~/lib/schemas/api-tokens";
import {
  apiTokens,
  auditLog,
  licences,
  resellerAccounts,
  resellerKeys,
  resellerLedger,
  userRoles,
} from "~/server/platform/db/schema.server";
import { call, createAccount, db, hwid, ORIGIN, signIn, type TestAccount, unique, validate } from "../helpers";

const WEEKLY_CENTS = 1500; // the demo week plan (29.99) at the default 50% discount

interface Holder {
  account: TestAccount;
  cookie: string;
}

async function reseller(balanceCents = 100_000): Promise<Holder> {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  await call("/dashboard/resell", { cookie }); // the first visit opens the reseller account
  await db.update(resellerAccounts).set({ balanceCents }).where(eq(resellerAccounts.userId, account.id));
  return { account, cookie };
}

/** A token made on the Security page, as its holder copies it from there. */
async function tokenOf({ account, cookie }: Holder, scopes: readonly ApiScope[] = API_SCOPES, form: Record<string, string> = {}) {
  const response = await call("/dashboard/security", {
    cookie,
    ip: unique("ip"),
    form: {
      intent: "create-api-token",
      name: unique("bot"),
      password: account.password,
      ...Object.fromEntries(scopes.map((scope) => [scopeField(scope), "on"])),
      ...form,
    },
  });
  const token = /vtx_[\w-]{43}/.exec(await response.text())?.[0];
  if (!token) throw new Error(`no token: ${response.status}`);
  return token;
}

/** One call to the seller API, from an address of its own. */
async function seller(token: string | null, path: string, init: { method?: string; body?: unknown; idempotencyKey?: string } = {}) {
  const headers = new Headers({ "CF-Connecting-IP": `192.0.2.${Math.floor(Math.random() * 250)}` });
  if (token) headers.set("Authorization", `Bearer ${token}`);
  if (init.idempotencyKey) headers.set("Idempotency-Key", init.idempotencyKey);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/seller${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
  );
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the fields it asserts
  return { response, status: response.status, json: (text ? JSON.parse(text) : null) as any };
}

const createKeys = (token: string, quantity: number, idempotencyKey = crypto.randomUUID()) =>
  seller(token, "/keys", { body: { plan: "weekly", quantity }, idempotencyKey });

async function keysMadeBy(holder: Holder, quantity = 2) {
  const made = await createKeys(await tokenOf(holder), quantity);
  expect(made.status).toBe(201);
  return (made.json.keys as { key: string }[]).map((key) => key.key);
}

const licenceOf = (key: string) => db.select().from(licences).where(eq(licences.key, key)).get();
const balanceCentsOf = async (userId: string) =>
  (await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get())!.balanceCents;
const purchasesOf = (userId: string) =>
  db
    .select()
    .from(resellerLedger)
    .where(and(eq(resellerLedger.userId, userId), eq(resellerLedger.kind, "purchase")))
    .all();

/** Every operation, with the scope it needs, on `key` (another's or one's own). */
const OPERATIONS: { name: string; scope: ApiScope; onKey?: true; run: (token: string, key: string) => ReturnType<typeof seller> }[] = [
  { name: "create keys", scope: "keys:create", run: (token) => createKeys(token, 1) },
  { name: "list keys", scope: "keys:read", run: (token) => seller(token, "/keys") },
  { name: "read a key", onKey: true, scope: "keys:read", run: (token, key) => seller(token, `/keys/${key}`) },
  {
    name: "extend a key",
    onKey: true,
    scope: "keys:manage",
    run: (token, key) => seller(token, `/keys/${key}/extend`, { method: "POST", idempotencyKey: crypto.randomUUID() }),
  },
  {
    name: "reset a key's PC",
    onKey: true,
    scope: "keys:manage",
    run: (token, key) => seller(token, `/keys/${key}/reset-pc`, { method: "POST" }),
  },
  {
    name: "suspend a key",
    onKey: true,
    scope: "keys:manage",
    run: (token, key) => seller(token, `/keys/${key}/suspend`, { method: "POST" }),
  },
  {
    name: "lift a suspension",
    onKey: true,
    scope: "keys:manage",
    run: (token, key) => seller(token, `/keys/${key}/unsuspend`, { method: "POST" }),
  },
  {
    name: "revoke a key",
    onKey: true,
    scope: "keys:manage",
    run: (token, key) => seller(token, `/keys/${key}/revoke`, { method: "POST" }),
  },
  { name: "read the balance", scope: "balance:read", run: (token) => seller(token, "/balance") },
  { name: "read the balance's history", scope: "balance:read", run: (token) => seller(token, "/balance/history") },
];

describe("seller API tokens", () => {
  it("refuses every operation a token's scopes do not name, as problem details", async () => {
    const holder = await reseller();
    const [key] = await keysMadeBy(holder, 1);
    const without = Object.fromEntries(
      await Promise.all(
        API_SCOPES.map(
          async (scope) =>
            [
              scope,
              await tokenOf(
                holder,
                API_SCOPES.filter((s) => s !== scope),
              ),
            ] as const,
        ),
      ),
    );
    for (const operation of OPERATIONS) {
      const refused = await operation.run(without[operation.scope]!, key!);
      expect(refused.status, operation.name).toBe(403);
      expect(refused.response.headers.get("Content-Type"), operation.name).toBe("application/problem+json");
      expect(refused.json, operation.name).toMatchObject({
        status: 403,
        code: "FORBIDDEN",
        detail: expect.stringContaining(operation.scope),
      });
    }
    // Nothing was made, charged or changed.
    expect(await purchasesOf(holder.account.id)).toHaveLength(1);
    expect(await licenceOf(key!)).toMatchObject({ revokedAt: null, suspendedAt: null, expiresAt: null });
  });

  it("refuses a missing, unknown, revoked or expired token with 401", async () => {
    const holder = await reseller();
    const revoked = await tokenOf(holder);
    const expired = await tokenOf(holder, API_SCOPES, { expiresInDays: "7" });
    expect((await seller(revoked, "/balance")).status).toBe(200);
    const [first, second] = await db.select().from(apiTokens).where(eq(apiTokens.userId, holder.account.id)).orderBy(apiTokens.id);
    const revoke = await call("/dashboard/security", {
      cookie: holder.cookie,
      form: { intent: "revoke-api-token", token: String(first!.id) },
    });
    expect(revoke.status).toBe(200);
    // Seven days on: the second token has expired.
    await db
      .update(apiTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(apiTokens.id, second!.id));
    for (const token of [null, `vtx_${"A".repeat(43)}`, revoked, expired]) {
      const refused = await seller(token, "/balance");
      expect(refused.status, String(token)).toBe(401);
      expect(refused.json).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect(refused.response.headers.get("WWW-Authenticate")).toContain("Bearer");
    }
    expect((await seller(revoked, "/keys", { body: { plan: "weekly", quantity: 1 }, idempotencyKey: "x" })).status).toBe(401);
    expect(await purchasesOf(holder.account.id)).toHaveLength(0);
  });

  it("records the token's last use, time and address", async () => {
    const holder = await reseller();
    const token = await tokenOf(holder);
    expect((await db.select().from(apiTokens).where(eq(apiTokens.userId, holder.account.id)).get())?.lastUsedAt).toBeNull();
    await seller(token, "/balance");
    const used = await db.select().from(apiTokens).where(eq(apiTokens.userId, holder.account.id)).get();
    expect(used?.lastUsedAt).toBeGreaterThan(0);
    expect(used?.lastUsedIp).toMatch(/^192\.0\.2\./);
  });

  it("states the per-token limit in RateLimit fields, and refuses past it", async () => {
    const token = await tokenOf(await reseller());
    const first = await seller(token, "/balance");
    expect(first.response.headers.get("RateLimit-Policy")).toBe('"per-token";q=120;w=60');
    expect(first.response.headers.get("RateLimit")).toMatch(/^"per-token";r=\d+;t=\d+$/);
    // The binding counts in fixed windows: a run across a window's end may pass up to twice the quota.
    let refused: Awaited<ReturnType<typeof seller>> | undefined;
    for (let i = 0; i < 241 && !refused; i++) {
      const answer = await seller(token, "/balance");
      if (answer.status === 429) refused = answer;
      else expect(answer.status).toBe(200);
    }
    expect(refused?.json).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(refused?.response.headers.get("RateLimit")).toMatch(/^"per-token";r=0;t=\d+$/);
    expect(Number(refused?.response.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Another token of the same account has its own quota.
  });
});

describe("seller API keys", () => {
  it("creates keys once per Idempotency-Key, however many retries arrive at once", async () => {
    const holder = await reseller(100_000);
    const token = await tokenOf(holder);
    const idempotencyKey = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => createKeys(token, 3, idempotencyKey)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    const keys = answers.map((answer) => (answer.json.keys as { key: string }[]).map((key) => key.key).sort());
    expect(keys[0]).toHaveLength(3);
    for (const batch of keys) expect(batch).toEqual(keys[0]);
    expect(answers.filter((answer) => answer.json.replayed === false)).toHaveLength(1);
    expect(answers.map((answer) => answer.json.chargedCents)).toEqual(Array(10).fill(3 * WEEKLY_CENTS));
    // One batch, one charge.
    expect(await db.select().from(resellerKeys).where(eq(resellerKeys.userId, holder.account.id))).toHaveLength(3);
    expect(await purchasesOf(holder.account.id)).toHaveLength(1);
    expect(await balanceCentsOf(holder.account.id)).toBe(100_000 - 3 * WEEKLY_CENTS);
    // The same key with another body is refused, and changes nothing.
    const other = await createKeys(token, 4, idempotencyKey);
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: "CONFLICT", detail: expect.stringContaining("Idempotency-Key") });
    expect(await purchasesOf(holder.account.id)).toHaveLength(1);
  });

  it("asks for an Idempotency-Key and a body within the rules, and for enough balance", async () => {
    const holder = await reseller(WEEKLY_CENTS);
    const token = await tokenOf(holder);
    const noKey = await seller(token, "/keys", { body: { plan: "weekly", quantity: 1 } });
    expect(noKey.json).toMatchObject({ status: 400, code: "INVALID_REQUEST", field: "Idempotency-Key" });
    expect((await createKeys(token, 101)).json).toMatchObject({ status: 400, code: "INVALID_REQUEST", field: "quantity" });
    const idempotencyKey = crypto.randomUUID();
    expect((await createKeys(token, 2, idempotencyKey)).json).toMatchObject({ status: 409, code: "CONFLICT" });
    // Nothing was paid, so the same key may try again once the balance covers it.
    await db
      .update(resellerAccounts)
      .set({ balanceCents: 2 * WEEKLY_CENTS })
      .where(eq(resellerAccounts.userId, holder.account.id));
    expect((await createKeys(token, 2, idempotencyKey)).status).toBe(201);
    expect(await balanceCentsOf(holder.account.id)).toBe(0);
  });

  it("lists, reads, resets, suspends, extends and revokes a reseller's keys, audited under the token", async () => {
    const holder = await reseller(100_000);
    const token = await tokenOf(holder);
    const keys = await keysMadeBy(holder, 3);
    const page = await seller(token, "/keys?limit=2");
    expect(page.json.keys).toHaveLength(2);
    const rest = await seller(token, `/keys?limit=2&cursor=${page.json.nextCursor}`);
    expect([...page.json.keys, ...rest.json.keys].map((key: { key: string }) => key.key).sort()).toEqual([...keys].sort());
    expect(rest.json.nextCursor).toBeNull();

    const key = keys[0]!;
    expect((await seller(token, `/keys/${key}`)).json).toMatchObject({
      key,
      plan: "weekly",
      state: "not-activated",
      activated: false,
      pcBound: false,
    });
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json).toMatchObject({ code: "VALID" });
    expect((await seller(token, `/keys/${key}`)).json).toMatchObject({ state: "active", activated: true, pcBound: true });

    const reset = await seller(token, `/keys/${key}/reset-pc`, { method: "POST" });
    expect(reset.json).toMatchObject({ key, pcBound: false, activated: true });
    const audited = await db.select().from(auditLog).where(eq(auditLog.actorUserId, holder.account.id)).all();
    expect(audited.find((entry) => entry.action === "licence.owner-reset")?.detail).toContain("API token");
    expect(audited.find((entry) => entry.action === "seller-api.create-keys")?.detail).toContain("API token");

    expect((await seller(token, `/keys/${key}/suspend`, { method: "POST" })).json).toMatchObject({ state: "suspended" });
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json).toMatchObject({ code: "SUSPENDED" });
    expect((await seller(token, `/keys/${key}/unsuspend`, { method: "POST" })).json).toMatchObject({ state: "active" });

    const before = (await licenceOf(key))!.expiresAt!;
    const extendKey = crypto.randomUUID();
    const extended = await seller(token, `/keys/${key}/extend`, { method: "POST", idempotencyKey: extendKey });
    expect(extended.json).toMatchObject({ chargedCents: WEEKLY_CENTS, replayed: false });
    expect((await licenceOf(key))!.expiresAt).toBe(before + 7 * 86_400_000);
    const again = await seller(token, `/keys/${key}/extend`, { method: "POST", idempotencyKey: extendKey });
    expect(again.json).toMatchObject({ chargedCents: WEEKLY_CENTS, replayed: true });
    expect((await licenceOf(key))!.expiresAt).toBe(before + 7 * 86_400_000);
    expect(await balanceCentsOf(holder.account.id)).toBe(100_000 - 4 * WEEKLY_CENTS);

    expect((await seller(token, `/keys/${key}/revoke`, { method: "POST" })).json).toMatchObject({ state: "revoked" });
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json).toMatchObject({ code: "REVOKED" });
    expect((await seller(token, `/keys/${key}/revoke`, { method: "POST" })).json).toMatchObject({ status: 409, code: "CONFLICT" });

    const balance = await seller(token, "/balance");
    expect(balance.json).toEqual({ balanceCents: 100_000 - 4 * WEEKLY_CENTS, currency: "USD", discountPercent: 50 });
    const history = await seller(token, "/balance/history?limit=1");
    expect(history.json.entries).toHaveLength(1);
    expect(history.json.entries[0]).toMatchObject({ kind: "purchase", amountCents: -WEEKLY_CENTS });
    expect((await seller(token, `/balance/history?cursor=${history.json.nextCursor}`)).json.entries).toHaveLength(1);
  });

  it("keeps two resellers apart on every operation", async () => {
    const mine = await reseller();
    const theirs = await reseller();
    const [theirKey] = await keysMadeBy(theirs, 1);
    await keysMadeBy(mine, 1);
    const token = await tokenOf(mine);
    for (const operation of OPERATIONS) {
      const answer = await operation.run(token, theirKey!);
      // Operations on a key answer as if it did not exist; the others show only one's own.
      expect(JSON.stringify(answer.json), operation.name).not.toContain(theirKey!);
      if (operation.onKey) {
        expect(answer.status, operation.name).toBe(404);
        expect(answer.json, operation.name).toMatchObject({ code: "NOT_FOUND" });
      }
    }
    expect(await licenceOf(theirKey!)).toMatchObject({ revokedAt: null, suspendedAt: null, hwid: null, expiresAt: null });
    expect(await balanceCentsOf(theirs.account.id)).toBe(100_000 - WEEKLY_CENTS);
    const history = await seller(token, "/balance/history");
    expect(history.json.entries.every((entry: { amountCents: number }) => entry.amountCents === -WEEKLY_CENTS)).toBe(true);
    expect(history.json.entries).toHaveLength(2); // one's own key, and the one "create keys" made above
  });
});

describe("staff tokens", () => {
  it("reach any key by the role's capability, and lose what the role loses", async () => {
    const holder = await reseller();
    const [key] = await keysMadeBy(holder, 1);
    expect((await validate({ key: key!, hwid: hwid(), nonce: crypto.randomUUID() })).json).toMatchObject({ code: "VALID" });
    const supportAccount = await createAccount({ role: "support" });
    const support = await tokenOf({ account: supportAccount, cookie: await signIn(supportAccount, unique("ip")) }, [
      "keys:read",
      "keys:manage",
    ]);
    expect((await seller(support, `/keys/${key}`)).json).toMatchObject({ key, pcBound: true });
    // Support resets PCs; pausing and revoking are for admins.
    expect((await seller(support, `/keys/${key}/reset-pc`, { method: "POST" })).json).toMatchObject({ key, pcBound: false });
    expect((await seller(support, `/keys/${key}/suspend`, { method: "POST" })).status).toBe(403);
    expect((await seller(support, `/keys/${key}/revoke`, { method: "POST" })).status).toBe(403);
    // Extending is paid from one's own balance, for one's own keys; creating keys needs the panel.
    expect((await seller(support, `/keys/${key}/extend`, { method: "POST", idempotencyKey: "x" })).status).toBe(403);
    expect((await createKeys(support, 1)).status).toBe(403);
    const reset = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, supportAccount.id), eq(auditLog.action, "licence.reset-hwid")))
      .get();
    expect(reset?.detail).toContain("API token");

    const adminAccount = await createAccount({ role: "admin" });
    const admin = await tokenOf({ account: adminAccount, cookie: await signIn(adminAccount, unique("ip")) }, ["keys:read", "keys:manage"]);
    expect((await seller(admin, `/keys/${key}/suspend`, { method: "POST" })).json).toMatchObject({ state: "paused" });
    expect((await seller(admin, `/keys/${key}/unsuspend`, { method: "POST" })).json).toMatchObject({ state: "active" });
    // The admin becomes a member: the token keeps nothing the account can no longer grant.
    await db.delete(userRoles).where(eq(userRoles.userId, adminAccount.id));
    expect((await seller(admin, `/keys/${key}`)).status).toBe(403);
    expect((await seller(admin, `/keys/${key}/revoke`, { method: "POST" })).status).toBe(403);
    expect(await licenceOf(key!)).toMatchObject({ revokedAt: null });
  });
});
