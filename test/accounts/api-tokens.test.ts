// API tokens on the Security page: only resellers and staff make them, only with the password,
// only a hash is kept, and one account cannot revoke another's.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens } from "~/server/platform/db/schema.server";
import { call, createAccount, db, signIn, unique } from "../helpers";

async function reseller() {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  await call("/dashboard/resell", { cookie }); // the first visit opens the reseller account
  return { account, cookie };
}

const tokensOf = (userId: string) => db.select().from(apiTokens).where(eq(apiTokens.userId, userId)).all();
const create = (cookie: string, form: Record<string, string>) =>
  call("/dashboard/security", {
    cookie,
    ip: unique("ip"),
    form: { intent: "create-api-token", name: "Discord bot", scopes: "keys:create keys:read", ...form },
  });

describe("API tokens", () => {
  it("are made by a reseller with the password, stored as a hash with their scopes", async () => {
    const { account, cookie } = await reseller();
    expect((await create(cookie, { password: account.password })).status).toBe(200);
    const [token] = await tokensOf(account.id);
    expect(token).toMatchObject({ name: "Discord bot", scopes: "keys:create keys:read", revokedAt: null, expiresAt: null });
    expect(token!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("are refused without the right password, to members without the panel, and for unknown scopes", async () => {
    const { account, cookie } = await reseller();
    expect((await create(cookie, { password: "not-the-password" })).status).toBe(401);
    expect((await create(cookie, { password: account.password, scopes: "keys:create admin" })).status).toBe(400);
    const member = await createAccount();
    expect((await create(await signIn(member, unique("ip")), { password: member.password })).status).toBe(403);
    expect(await tokensOf(account.id)).toHaveLength(0);
    expect(await tokensOf(member.id)).toHaveLength(0);
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
