// A member's own data (decision 099): downloaded from the Security page as JSON, every table that
// holds their rows in it and nobody else's, their chat messages from the chat room's storage; staff
// download it for a member on request (admins only, audited).
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MEMBER_TABLES, SHOP_TABLES } from "~/server/privacy/member-data.server";
import { auditLog, users } from "~/server/platform/db/schema.server";
import { call, createAccount, db, signIn, unique } from "../helpers";
import { memberWithEverything } from "./privacy-helpers";

interface Export {
  member: { id: string; email: string; username: string };
  tables: Record<string, Record<string, unknown>[]>;
  chatMessages: { content: string; userId: string }[];
}

async function download(path: string, cookie: string) {
  const response = await call(path, { cookie });
  return { response, text: response.status === 200 ? await response.text() : "" };
}

describe("a member's data download", () => {
  it("holds every table with the member's rows and their chat messages, and nothing of another member", async () => {
    const member = await memberWithEverything({ role: "support" });
    const other = await memberWithEverything({ role: "support" });

    const { response, text } = await download("/dashboard/security/data.json", member.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("application/json");
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="[\w-]+\.json"$/);
    expect(response.headers.get("Cache-Control")).toContain("no-store");
    const data = JSON.parse(text) as Export;
    expect(data.member).toMatchObject({ id: member.id, email: member.email, username: member.username });

    for (const table of Object.keys(MEMBER_TABLES)) {
      expect(data.tables[table], table).toBeDefined();
      expect(data.tables[table]!.length, `${table} holds the member's rows`).toBeGreaterThan(0);
    }
    expect(data.tables.licences!.map((row) => row.key)).toContain(member.licenceKey);
    expect(data.tables.licences!.find((row) => row.key === member.licenceKey)).toMatchObject({ hwid: member.hwid });
    expect(data.tables.product_reviews!.map((row) => row.body)).toEqual([member.reviewBody]);
    expect(data.chatMessages.map((message) => message.content)).toEqual([member.chatMessage]);

    // Nobody else's: not the other member's account, address, key, PC, order or words.
    for (const theirs of [other.id, other.email, other.username, other.licenceKey, other.hwid, other.orderId, other.chatMessage]) {
      expect(text).not.toContain(theirs);
    }
    // Nor the secrets that prove who the member is.
    const stored = await db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, member.id)).get();
    expect(text).not.toContain(stored!.hash!);
    expect(data.tables.sessions![0]).not.toHaveProperty("id");
    expect(data.tables.totp_factors![0]).not.toHaveProperty("secret");
    expect(data.tables.recovery_codes![0]).not.toHaveProperty("code_hash");
  });

  it("names every table of the database as either holding members' rows or not", async () => {
    const rows = await db.all<{ name: string }>(
      sql`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name <> 'd1_migrations'`,
    );
    const named = new Set([...Object.keys(MEMBER_TABLES), ...Object.keys(SHOP_TABLES)]);
    expect(rows.map((row) => row.name).filter((name) => !named.has(name))).toEqual([]);
    expect(Object.keys(MEMBER_TABLES).filter((name) => name in SHOP_TABLES)).toEqual([]);
  });

  it("is only for a signed-in member", async () => {
    const response = await call("/dashboard/security/data.json");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^\/auth/);
  });

  it("is downloaded by an admin for a member on request, audited, and refused to support", async () => {
    const member = await memberWithEverything();
    const admin = await createAccount({ admin: true });
    const support = await createAccount({ role: "support" });

    const { response, text } = await download(`/dashboard/customers/${member.id}/data.json`, await signIn(admin, unique("ip")));
    expect(response.status).toBe(200);
    const data = JSON.parse(text) as Export;
    expect(data.member.id).toBe(member.id);
    expect(data.chatMessages.map((message) => message.content)).toEqual([member.chatMessage]);
    const audited = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "privacy.export"), eq(auditLog.subject, member.id), eq(auditLog.actorUserId, admin.id)))
      .get();
    expect(audited).toBeDefined();

    const refused = await call(`/dashboard/customers/${member.id}/data.json`, { cookie: await signIn(support, unique("ip")) });
    expect(refused.status).toBe(403);
    expect(
      (await call(`/dashboard/customers/${crypto.randomUUID()}/data.json`, { cookie: await signIn(admin, unique("ip")) })).status,
    ).toBe(404);
  });
});
