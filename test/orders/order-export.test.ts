import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Viewer } from "~/lib/viewer";
import { exportKeys, exportOrders } from "~/server/orders/order-export.server";
import { csvCell } from "~/server/platform/csv.server";
import { addCodes } from "~/server/keys/stock.server";
import { auditLog, shopifyOrders } from "~/server/platform/db/schema.server";
import { call, createAccount, db, nextId, quietDay, signIn, unique } from "../helpers";

const admin = async () => {
  const account = await createAccount({ role: "admin" });
  return { account, cookie: await signIn(account, unique("ip")) };
};

async function shopifyOrder(values: Partial<typeof shopifyOrders.$inferInsert>) {
  const id = String(nextId());
  await db.insert(shopifyOrders).values({
    id,
    name: `#${id}`,
    email: `${unique("buyer")}@example.test`,
    currency: "USD",
    totalPrice: "10.00",
    lineItems: "[]",
    receivedAt: Date.now(),
    paidAt: Date.now(),
    ...values,
  });
  return id;
}

const read = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("CSV cells", () => {
  it("quotes what needs quoting and defuses formulas", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+SUM(A1)")).toBe("'+SUM(A1)");
    expect(csvCell("-2")).toBe("'-2");
    expect(csvCell("@cmd")).toBe("'@cmd");
    expect(csvCell('=HYPERLINK("x","y")')).toBe(`"'=HYPERLINK(""x"",""y"")"`);
    expect(csvCell(42)).toBe("42");
    expect(csvCell(null)).toBe("");
  });
});

describe("order export", () => {
  it("streams the filtered orders as an attachment, escaped, and audits the export", async () => {
    const { account, cookie } = await admin();
    const { day, start } = quietDay(1980);
    const tricky = await shopifyOrder({ receivedAt: start, name: '=HYPERLINK("http://evil")', email: '"odd,one"@example.test' });
    const plain = await shopifyOrder({ receivedAt: start + 1000 });
    await shopifyOrder({ receivedAt: start - 86_400_000 }); // the day before: filtered out
    const response = await call(`/dashboard/orders/export.csv?from=${day}&to=${day}`, { cookie });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/csv");
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await response.text()).trim().split("\r\n");
    expect(lines[0]).toBe("order,source,reference,email,state,total,currency,method,created at");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,shopify,${plain},`);
    expect(lines[2]).toBe(
      `"'=HYPERLINK(""http://evil"")",shopify,${tricky},"""odd,one""@example.test",paid,10.00,USD,card,${new Date(start).toISOString()}`,
    );
    const entry = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, account.id), eq(auditLog.action, "export.orders")))
      .get();
    expect(JSON.parse(entry!.detail!)).toMatchObject({ from: start, until: start + 86_400_000 });
  });

  it("reads every row across many small pages", async () => {
    const { account } = await admin();
    const { day, start } = quietDay(1980);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await shopifyOrder({ receivedAt: start + Math.floor(i / 2) }));
    const viewer = { id: account.id, role: "admin" } as Viewer;
    const from = Date.parse(`${day}T00:00:00Z`);
    const text = await read(await exportOrders(db, { viewer, ip: null }, { q: "", from, until: from + 86_400_000 }, 2));
    const refs = text
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",")[2]);
    expect(refs.sort()).toEqual([...ids].sort());
  });

  it("refuses bad filters with 400", async () => {
    const { cookie } = await admin();
    expect((await call("/dashboard/orders/export.csv?state=nonsense", { cookie })).status).toBe(400);
    expect((await call("/dashboard/orders/keys.csv?state=stolen", { cookie })).status).toBe(400);
    expect((await call("/dashboard/orders/keys.csv?variant=abc", { cookie })).status).toBe(400);
  });
});

describe("key export", () => {
  it("streams a variant's keys by state across pages, with formulas defused", async () => {
    const { account, cookie } = await admin();
    const variant = `gid://shopify/ProductVariant/${nextId()}`;
    const codes = Array.from({ length: 5 }, (_, i) => (i === 0 ? `=CMD${unique("k")}` : unique("KEY")));
    await addCodes(db, { id: variant, title: "Vertex Rust - 1 Week" }, codes.join("\n"));
    const viewer = { id: account.id, role: "admin" } as Viewer;
    const text = await read(await exportKeys(db, { viewer, ip: null }, { variant, state: "available", from: "", to: "" }, 2));
    const lines = text.trim().split("\r\n");
    expect(lines[0]).toBe("code id,variant,key,state,order,email,sold at,revoked at");
    expect(lines).toHaveLength(6);
    expect(lines.slice(1).map((l) => l.split(",")[2])).toEqual([`'${codes[0]}`, ...codes.slice(1)]);
    expect(lines.slice(1).every((l) => l.split(",")[3] === "available")).toBe(true);

    const response = await call(`/dashboard/orders/keys.csv?variant=${encodeURIComponent(variant)}&state=sold`, { cookie });
    expect(response.headers.get("Content-Disposition")).toMatch(/filename="keys-\d{4}-\d{2}-\d{2}\.csv"/);
    expect((await response.text()).trim().split("\r\n")).toHaveLength(1);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorUserId, account.id), eq(auditLog.action, "export.keys"))),
    ).toHaveLength(2);
  });
});
