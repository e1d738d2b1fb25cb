// API tokens on the Security page: only resellers and staff make them, with the password or (where
// it is on) the second factor, with scopes from the short list their account may grant; only a
// hash is kept, and one account cannot revoke another's.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ApiScope, scopeField } from "~/lib/schemas/api-tokens";
import { apiTokens } from "~/server/platform/db/schema.server";
import { call, createAccount, db, enableTwoFactor, signIn, signInWithCode, unique } from "../helpers";

async function reseller() {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  await call("/dashboard/resell", { cookie }); // the first visit opens the reseller account
  return { account, cookie };
}

const tokensOf = (userId: string) => db.select().from(apiTokens).where(eq(apiTokens.userId, userId)).all();
const ticked = (scopes: ApiScope[]) => Object.fromEntries(scopes.map((scope) => [scopeField(scope), "on"]));
const create = (cookie: string, form: Record<string, string>, scopes: ApiScope[] = ["keys:create", "keys:read"]) =>
  call("/dashboard/security", {
    cookie,
    ip: unique("ip"),
    form: { intent: "create-api-token", name: "Discord bot", ...ticked(scopes), ...form },
  });

describe("API tokens", () => {
  it("are made by a reseller with the password, stored as a hash with the scopes ticked", async () => {
    const { account, cookie } = await reseller();
    const response = await create(cookie, { password: account.password });
    expect(response.status).toBe(200);
    const [token] = await tokensOf(account.id);
    expect(token).toMatchObject({ name: "Discord bot", scopes: "keys:create keys:read", revokedAt: null, expiresAt: null });
    expect(token!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    // The token itself is in the answer, once; the page shows the scopes as checkboxes.
    expect(await response.text()).toMatch(/vtx_[\w-]{43}/);
    const page = await (await call("/dashboard/security", { cookie })).text();
    expect(page).toContain(`name="${scopeField("balance:read")}"`);
    expect(page).not.toMatch(/vtx_[\w-]{43}/);
  });

  it("are refused without the right password, without a scope, and to members without the panel", async () => {
    const { account, cookie } = await reseller();
    expect((await create(cookie, { password: "not-the-password" })).status).toBe(401);
    expect((await create(cookie, { password: account.password }, [])).status).toBe(400);
    const member = await createAccount();
    expect((await create(await signIn(member, unique("ip")), { password: member.password })).status).toBe(403);
    expect(await tokensOf(account.id)).toHaveLength(0);
    expect(await tokensOf(member.id)).toHaveLength(0);
  });

  it("take a code from the authenticator app instead of the password where two-factor is on", async () => {
    const { account } = await reseller();
    const { totp } = await enableTwoFactor(account);
    const cookie = await signInWithCode(account, totp);
    expect(await (await call("/dashboard/security", { cookie })).text()).toContain("Code from your authenticator app");
    expect((await create(cookie, { code: "000000" })).status).toBe(401);
    expect(await tokensOf(account.id)).toHaveLength(0);
    // The next step's code: the one signing in used the current step.
    const response = await create(cookie, { code: totp.generate({ timestamp: Date.now() + 30_000 }) });
    expect(response.status).toBe(200);
    expect(await tokensOf(account.id)).toHaveLength(1);
  });

  it("carry only the scopes the staff member's role has", async () => {
    const support = await createAccount({ role: "support" });
    const cookie = await signIn(support, unique("ip"));
    const page = await (await call("/dashboard/security", { cookie })).text();
    expect(page).toContain(`name="${scopeField("keys:read")}"`);
    expect(page).not.toContain(`name="${scopeField("keys:create")}"`);
    expect((await create(cookie, { password: support.password }, ["keys:create"])).status).toBe(403);
    expect((await create(cookie, { password: support.password }, ["keys:read", "keys:manage"])).status).toBe(200);
    expect((await tokensOf(support.id)).map((token) => token.scopes)).toEqual(["keys:read keys:manage"]);
  });

  it("are revoked by their owner only", async () => {
    const owner = await reseller();
    const other = await reseller();
    await create(owner.cookie, { password: owner.account.password, expiresInDays: "30" });
    const [token] = await tokensOf(owner.account.id);
    expect(token!.expiresAt).toBeGreaterThan(Date.now());
    const revoke = (cookie: string) =>
      call("/dashboard/security", { cookie, form: { intent: "revoke-api-token", token: String(token!.id) } });
    expect((await revoke(other.cookie)).status).toBe(404);
    expect((await tokensOf(owner.account.id))[0]!.revokedAt).toBeNull();
    expect((await revoke(owner.cookie)).status).toBe(200);
    expect((await tokensOf(owner.account.id))[0]!.revokedAt).not.toBeNull();
  });
});
