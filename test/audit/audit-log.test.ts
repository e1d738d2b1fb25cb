// The audit log page: staff only (admins and support), filters by actor, kind and days, pages of
// 50 that never overlap, readable rows (links, details as text), and bad filters shown, not a 500.
import { describe, expect, it } from "vitest";
import { auditLog } from "~/server/platform/db/schema.server";
import { call, createAccount, db, signIn, unique } from "../helpers";

const AUDIT = "/dashboard/audit";
const text = (html: string) => html.replaceAll("<!-- -->", "");
const DAY = 24 * 60 * 60 * 1000;

/** A group of actions no other test records, so counts are this test's own. */
const group = () =>
  `t${unique()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .slice(-10)}`;

/** The subjects a page shows that start with `prefix` (each row is drawn as a card and a table row). */
const subjectsIn = (html: string, prefix: string) => new Set([...html.matchAll(new RegExp(`>(${prefix}[^<]*)<`, "g"))].map((m) => m[1]!));

async function staffCookie(role: "admin" | "support" = "support") {
  return signIn(await createAccount({ role }), unique("ip"));
}

describe("who may read the audit log", () => {
  it("refuses members with 403 and shows it to support and admins", async () => {
    const member = await signIn(await createAccount(), unique("ip"));
    expect((await call(AUDIT, { cookie: member })).status).toBe(403);
    expect((await call(`${AUDIT}.data`, { cookie: member })).status).toBe(403);
    expect((await call(AUDIT, { cookie: await staffCookie("support") })).status).toBe(200);
    expect((await call(AUDIT, { cookie: await staffCookie("admin") })).status).toBe(200);
    expect((await call(AUDIT)).headers.get("Location")).toBe("/auth");
  });
});

describe("filters", () => {
  it("filters by actor (username, e-mail or system), kind (an action or its group) and days", async () => {
    const cookie = await staffCookie();
    const kind = group();
    const alice = await createAccount();
    const bob = await createAccount();
    const base = Date.UTC(2021, 4, 10, 12);
    await db.insert(auditLog).values([
      { actorUserId: alice.id, action: `${kind}.ban`, subject: `${kind}-s1`, detail: "{}", createdAt: base },
      { actorUserId: alice.id, action: `${kind}.unban`, subject: `${kind}-s2`, detail: "{}", createdAt: base + DAY },
      { actorUserId: bob.id, action: `${kind}.ban`, subject: `${kind}-s3`, detail: "{}", createdAt: base + 2 * DAY },
      { actorUserId: null, action: `${kind}.sweep`, subject: `${kind}-s4`, detail: "{}", createdAt: base + 2 * DAY },
    ]);
    const shown = async (query: Record<string, string>) => {
      const response = await call(`${AUDIT}?${new URLSearchParams({ kind: `${kind}.`, ...query })}`, { cookie });
      expect(response.status).toBe(200);
      return [...subjectsIn(await response.text(), `${kind}-`)].sort();
    };
    expect(await shown({})).toEqual([`${kind}-s1`, `${kind}-s2`, `${kind}-s3`, `${kind}-s4`]);
    expect(await shown({ actor: alice.username })).toEqual([`${kind}-s1`, `${kind}-s2`]);
    expect(await shown({ actor: bob.email.toUpperCase() })).toEqual([`${kind}-s3`]);
    expect(await shown({ actor: "system" })).toEqual([`${kind}-s4`]);
    expect(await shown({ kind: `${kind}.ban` })).toEqual([`${kind}-s1`, `${kind}-s3`]);
    expect(await shown({ from: "2021-05-11" })).toEqual([`${kind}-s2`, `${kind}-s3`, `${kind}-s4`]);
    expect(await shown({ from: "2021-05-11", to: "2021-05-11" })).toEqual([`${kind}-s2`]);
    expect(await shown({ to: "2021-05-10" })).toEqual([`${kind}-s1`]);
    expect(await shown({ actor: alice.username, kind: `${kind}.unban` })).toEqual([`${kind}-s2`]);
    // A group is a whole prefix: "tX." never matches "tXsomething.".
    expect(await shown({ kind: `${kind.slice(0, -1)}.` })).toEqual([]);
  });

  it("answers 400 with the problem shown next to its field, never a 500", async () => {
    const cookie = await staffCookie();
    for (const [query, message] of [
      [{ actor: "nobody-by-this-name" }, "No account with that username or e-mail"],
      [{ kind: "<script>alert(1)</script>" }, "Choose a kind from the list"],
      [{ kind: "a.b.c" }, "Choose a kind from the list"],
      [{ from: "2021-02-30" }, "Enter the first day as a date"],
      [{ to: "yesterday" }, "Enter the last day as a date"],
      [{ from: "2021-05-12", to: "2021-05-11" }, "The last day cannot be before the first"],
      [{ cursor: "'; drop table audit_log; --" }, "That page link is broken"],
    ] as const) {
      const response = await call(`${AUDIT}?${new URLSearchParams(query)}`, { cookie });
      const html = text(await response.text());
      expect([query, response.status]).toEqual([query, 400]);
      expect(html).toContain(message);
      expect(html).not.toContain("<script>alert(1)</script>");
    }
    // The field that is wrong is marked for assistive technology.
    const html = await (await call(`${AUDIT}?from=nope`, { cookie })).text();
    expect(html).toMatch(
      /name="from"[^>]*aria-describedby="[^"]*-error"|aria-describedby="[^"]*-error"[^>]*aria-invalid="true"[^>]*name="from"/,
    );
  });
});

describe("pages", () => {
  it("walks 120 entries newest first in pages of 50 without overlap, ties broken by id", async () => {
    const cookie = await staffCookie();
    const kind = group();
    const base = Date.UTC(2022, 0, 1);
    // Groups of three share a timestamp, so pages must split ties by id.
    const rows = Array.from({ length: 120 }, (_, i) => ({
      actorUserId: null,
      action: `${kind}.page`,
      subject: `${kind}-n${String(i).padStart(3, "0")}`,
      detail: "{}",
      createdAt: base + Math.floor(i / 3) * 1000,
    }));
    // D1 binds at most 100 values a statement.
    for (let i = 0; i < rows.length; i += 15) await db.insert(auditLog).values(rows.slice(i, i + 15));
    const seen: string[][] = [];
    let url: string | null = `${AUDIT}?kind=${kind}.page`;
    while (url) {
      const response: Response = await call(url, { cookie });
      expect(response.status).toBe(200);
      const html = await response.text();
      const subjects = [...subjectsIn(html, `${kind}-`)];
      seen.push(subjects);
      const cursor = /href="[^"]*cursor=([\d.]+)"[^>]*>Older entries/.exec(html)?.[1];
      url = cursor ? `${AUDIT}?kind=${kind}.page&cursor=${cursor}` : null;
      expect(seen.length).toBeLessThan(5);
    }
    expect(seen.map((page) => page.length)).toEqual([50, 50, 20]);
    const all = seen.flat();
    expect(new Set(all).size).toBe(120);
    // Newest first: the subjects count down from n119.
    expect(all).toEqual(Array.from({ length: 120 }, (_, i) => `${kind}-n${String(119 - i).padStart(3, "0")}`));
  });

  it("shows an empty state when nothing matches", async () => {
    const html = text(await (await call(`${AUDIT}?kind=${group()}.none`, { cookie: await staffCookie() })).text());
    expect(html).toContain("No entries match these filters.");
  });
});

describe("rows", () => {
  it("names the actor, labels the action, links orders and accounts, and shows the detail as text", async () => {
    const admin = await createAccount({ admin: true });
    const customer = await createAccount();
    const kind = group();
    await db.insert(auditLog).values([
      {
        actorUserId: admin.id,
        action: "licence.ban",
        subject: `crypto:CRYPTO-${kind.toUpperCase()}`,
        detail: JSON.stringify({ reason: "<b>chargeback</b>", count: 2 }),
        ip: "203.0.113.9",
        createdAt: Date.now(),
      },
      {
        actorUserId: admin.id,
        action: "reseller.credit",
        subject: customer.id,
        detail: JSON.stringify({ amountCents: 500 }),
        createdAt: Date.now(),
      },
    ]);
    const html = text(
      await (await call(`${AUDIT}?${new URLSearchParams({ actor: admin.username })}`, { cookie: await staffCookie() })).text(),
    );
    const linkTo = (href: string, label: string) => new RegExp(`href="${href}"[^>]*>${label}</a>`);
    expect(html).toMatch(linkTo(`/dashboard/customers/${admin.id}`, admin.username));
    expect(html).toContain("Banned a key");
    expect(html).toContain(`href="/dashboard/orders/crypto/CRYPTO-${kind.toUpperCase()}"`);
    expect(html).toMatch(linkTo(`/dashboard/customers/${customer.id}`, customer.username));
    expect(html).toContain('reason: </dt><dd class="inline">&lt;b&gt;chargeback&lt;/b&gt;</dd>');
    expect(html).toContain('count: </dt><dd class="inline">2</dd>');
    expect(html).not.toContain("<b>chargeback</b>");
    expect(html).toContain("203.0.113.9");
  });
});
