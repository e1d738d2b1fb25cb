import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { downloadableFiles, userSubscriptions } from "~/server/platform/db/schema.server";
import { contentDisposition } from "~/server/hub/downloads.server";
import { expireSubscriptions } from "~/server/fulfilment/subscriptions.server";
import { call, createAccount, db, ORIGIN, signIn, unique } from "./helpers";

const BODY = "loader bytes \u00e9\n".repeat(50);
let fileId: string;
let freeFileId: string;

beforeAll(async () => {
  fileId = crypto.randomUUID();
  freeFileId = crypto.randomUUID();
  await env.DOWNLOADS.put(`test/${fileId}`, BODY, { httpMetadata: { contentType: "application/zip" } });
  await env.DOWNLOADS.put(`test/${freeFileId}`, "free");
  await db.insert(downloadableFiles).values([
    { id: fileId, fileName: "Vertex Loader.zip", filePath: `test/${fileId}`, fileSize: new TextEncoder().encode(BODY).byteLength, contentType: "application/zip", version: "2.0.0", requiresSubscription: true, isActive: true, createdAt: Date.now() },
    { id: freeFileId, fileName: "guide.txt", filePath: `test/${freeFileId}`, fileSize: 4, contentType: "text/plain", version: "1", requiresSubscription: false, isActive: true, createdAt: Date.now() },
  ]);
});

async function subscriber(expiry: number | null, status: "active" | "expired" = "active") {
  const account = await createAccount();
  await db.insert(userSubscriptions).values({
    id: crypto.randomUUID(), userId: account.id, status, productTitle: "Vertex Rust", variantTitle: "30 Days", priceCurrency: "USD", priceAmount: "89.99",
    purchaseDate: Date.now() - 1000, expiryDate: expiry,
  });
  return signIn(account, unique("ip"));
}

describe("downloads", () => {
  it("refuses a member without a subscription (403, the specification's message)", async () => {
    const response = await call(`/dashboard/downloads/${fileId}`, { cookie: await signIn(await createAccount(), unique("ip")) });
    expect(response.status).toBe(403);
    expect(await response.text()).toBe("Active subscription required to download this file");
  });

  it("refuses a subscription that has expired, even before the hourly job marks it", async () => {
    const response = await call(`/dashboard/downloads/${fileId}`, { cookie: await subscriber(Date.now() - 1) });
    expect(response.status).toBe(403);
    const marked = await call(`/dashboard/downloads/${fileId}`, { cookie: await subscriber(Date.now() + 60_000, "expired") });
    expect(marked.status).toBe(403);
  });

  it("streams the bytes to a subscriber with the right headers", async () => {
    const response = await call(`/dashboard/downloads/${fileId}`, { cookie: await subscriber(Date.now() + 86_400_000) });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/zip");
    expect(response.headers.get("Content-Length")).toBe(String(new TextEncoder().encode(BODY).byteLength));
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="Vertex Loader.zip"; filename*=UTF-8''Vertex%20Loader.zip`);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    expect(await response.text()).toBe(BODY);
  });

  it("lets any member download a file that needs no subscription, and lifetime plans never expire", async () => {
    expect((await call(`/dashboard/downloads/${freeFileId}`, { cookie: await signIn(await createAccount(), unique("ip")) })).status).toBe(200);
    expect((await call(`/dashboard/downloads/${fileId}`, { cookie: await subscriber(null) })).status).toBe(200);
  });

  it("sends a signed-out visitor to /auth and answers 404 for unknown or retired files", async () => {
    const anonymous = await call(`/dashboard/downloads/${fileId}`);
    expect(anonymous.status).toBe(302);
    const cookie = await subscriber(null);
    expect((await call(`/dashboard/downloads/${crypto.randomUUID()}`, { cookie })).status).toBe(404);
    const retired = crypto.randomUUID();
    await db.insert(downloadableFiles).values({ id: retired, fileName: "old.zip", filePath: `test/${fileId}`.replace(fileId, retired), version: "0.1", isActive: false, createdAt: 0 });
    expect((await call(`/dashboard/downloads/${retired}`, { cookie })).status).toBe(404);
  });

  it("shows the list with the no-subscription notice and a disabled button", async () => {
    const html = await (await call("/dashboard/downloads", { cookie: await signIn(await createAccount(), unique("ip")) })).text();
    expect(html).toContain("No Active Subscription");
    expect(html).toContain("Vertex Loader.zip");
    expect(html).toContain("Requires Active Subscription");
    expect(html).not.toContain(`href="/dashboard/downloads/${fileId}"`);
    // A file that needs no subscription is offered all the same.
    expect(html).toContain(`href="/dashboard/downloads/${freeFileId}"`);
  });

  it("shows an admin without a subscription what the server lets them do: no notice, a working Download link", async () => {
    const cookie = await signIn(await createAccount({ admin: true }), unique("ip"));
    const html = await (await call("/dashboard/downloads", { cookie })).text();
    expect(html).not.toContain("No Active Subscription");
    expect(html).toContain("As an admin you can download every file");
    expect(html).toContain(`href="/dashboard/downloads/${fileId}"`);
    expect((await call(`/dashboard/downloads/${fileId}`, { cookie })).status).toBe(200);
  });

  it("shows a subscriber no notice and a working Download link", async () => {
    const cookie = await subscriber(Date.now() + 60_000);
    const html = await (await call("/dashboard/downloads", { cookie })).text();
    expect(html).not.toContain("No Active Subscription");
    expect(html).not.toContain("As an admin");
    expect(html).toContain(`href="/dashboard/downloads/${fileId}"`);
  });

  it("lets only admins publish a new version, which replaces the listed one", async () => {
    const upload = (cookie: string) => {
      const form = new FormData();
      form.set("file", new File(["new build"], "Vertex Loader.zip", { type: "application/zip" }));
      form.set("version", "2.1.0");
      form.set("requiresSubscription", "on");
      return exports.default.fetch(new Request(`${ORIGIN}/dashboard/downloads`, { method: "POST", headers: { Origin: ORIGIN, Cookie: cookie }, body: form }));
    };
    const member = await signIn(await createAccount(), unique("ip"));
    expect((await upload(member)).status).toBe(403);
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    expect((await upload(admin)).status).toBe(200);
    const listed = await db.select().from(downloadableFiles).where(eq(downloadableFiles.fileName, "Vertex Loader.zip"));
    expect(listed.filter((f) => f.isActive).map((f) => f.version)).toEqual(["2.1.0"]);
    const current = listed.find((f) => f.isActive)!;
    expect(await (await env.DOWNLOADS.get(current.filePath))?.text()).toBe("new build");
  });

  it("checks an upload: a file, a version, and the size caps", async () => {
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    const post = (form: FormData, headers: HeadersInit = {}) =>
      exports.default.fetch(new Request(`${ORIGIN}/dashboard/downloads`, { method: "POST", headers: { Origin: ORIGIN, Cookie: admin, ...headers }, body: form }));
    const fileName = `${unique("build")}.zip`;
    const formWith = (fields: Record<string, string | File>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      return form;
    };
    const cases: [FormData, string][] = [
      [formWith({ version: "1.0" }), "Choose a file to upload"],
      [formWith({ file: new File([], ""), version: "1.0" }), "Choose a file to upload"],
      [formWith({ file: new File(["x"], fileName), version: "  " }), "Enter a version"],
      [formWith({ file: new File(["x"], fileName), version: "1".repeat(41) }), "Versions are at most 40 characters"],
    ];
    for (const [form, message] of cases) {
      const response = await post(form);
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain("Upload failed");
      expect(text).toContain(message);
    }
    // A body declared larger than any allowed upload is refused before it is read.
    const huge = await post(formWith({ file: new File(["x"], fileName), version: "1.0" }), { "Content-Length": String(91 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain("Files can be at most 90 MB");
    expect(await db.select().from(downloadableFiles).where(eq(downloadableFiles.fileName, fileName))).toHaveLength(0);

    const done = await post(formWith({ file: new File(["x"], fileName), version: "1.0", description: "  First build  " }));
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`${fileName} 1.0 is now available`);
    expect(await db.select().from(downloadableFiles).where(eq(downloadableFiles.fileName, fileName)).get()).toMatchObject({
      version: "1.0",
      description: "First build",
      requiresSubscription: false,
      isActive: true,
    });
  });

  it("quotes unsafe file names in Content-Disposition", () => {
    expect(contentDisposition('a"b\\c\u00e9.zip')).toBe(`attachment; filename="a_b_c_.zip"; filename*=UTF-8''a%22b%5Cc%C3%A9.zip`);
  });
});

describe("subscription expiry job", () => {
  it("marks active subscriptions past their expiry as expired and leaves lifetime ones alone", async () => {
    const account = await createAccount();
    const base = { userId: account.id, productTitle: "p", variantTitle: "v", priceCurrency: "USD", priceAmount: "1.00", purchaseDate: 0 };
    const [past, lifetime, future] = await db
      .insert(userSubscriptions)
      .values([
        { ...base, id: crypto.randomUUID(), status: "active", expiryDate: Date.now() - 1 },
        { ...base, id: crypto.randomUUID(), status: "active", expiryDate: null },
        { ...base, id: crypto.randomUUID(), status: "active", expiryDate: Date.now() + 60_000 },
      ])
      .returning();
    await expireSubscriptions(db);
    const status = async (id: string) => (await db.select().from(userSubscriptions).where(eq(userSubscriptions.id, id)).get())?.status;
    expect(await status(past!.id)).toBe("expired");
    expect(await status(lifetime!.id)).toBe("active");
    expect(await status(future!.id)).toBe("active");
  });
});
