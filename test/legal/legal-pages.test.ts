// The legal pages through the Worker: templates until staff edit them, Markdown rendered with raw
// HTML shown as text, only admins may edit, bad input refused, the cached copy dropped on save,
// and the links from the footer, the sign-up form and the checkout dialog.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, legalPages } from "~/server/platform/db/schema.server";
import { call, createAccount, db, signIn, unique } from "../helpers";

const staff = async (options: Parameters<typeof createAccount>[0]) => signIn(await createAccount(options), unique("ip"));
const save = (cookie: string, page: string, markdown: string) =>
  call("/dashboard/legal", { form: { intent: "save", page, markdown }, cookie });

describe("legal pages", () => {
  it("serve a template for each page until staff edit it, as a public page linked from the footer and the sign-up form", async () => {
    for (const [path, heading] of [
      ["/legal/terms", "Terms of Service"],
      ["/legal/refunds", "Refund Policy"],
      ["/legal/privacy", "Privacy Policy"],
    ] as const) {
      const response = await call(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toContain("public");
      const html = await response.text();
      expect(html).toContain(`<h1>${heading}</h1>`);
      expect(html).toContain("Last updated");
      expect(html).toContain(`href="${path}"`);
    }
    expect((await call("/legal/cookies")).status).toBe(404);
    const signUp = await (await call("/auth?mode=signup")).text();
    expect(signUp).toContain('href="/legal/terms"');
    expect(signUp).toContain('href="/legal/privacy"');
    // The back office's editor starts from the same templates.
    const editor = await (await call("/dashboard/legal", { cookie: await staff({ admin: true }) })).text();
    expect(editor).toContain("# Terms of Service\n");
    expect(editor).toContain("# Privacy Policy\n");
  });

  it("let an admin publish Markdown at once, with HTML in it shown as text, and audit it", async () => {
    const admin = await staff({ admin: true });
    // Cached first, so the save must drop the copy.
    await call("/legal/refunds");
    const marker = unique("Refunds within 30 days ");
    const saved = await save(admin, "refunds", `# Refund Policy\n\n**${marker}**\n\n<script>alert(1)</script>`);
    expect(saved.status).toBe(200);
    const html = await (await call("/legal/refunds")).text();
    expect(html).toContain(`<strong>${marker}</strong>`);
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const row = await db.select().from(legalPages).where(eq(legalPages.slug, "refunds")).get();
    expect(row?.markdown).toContain(marker);
    expect(await db.select().from(auditLog).where(eq(auditLog.subject, "legal:refunds")).all()).not.toHaveLength(0);
  });

  it("refuse support and members (403), and an empty or unknown page (400), changing nothing", async () => {
    const before = await db.select().from(legalPages).where(eq(legalPages.slug, "privacy")).get();
    for (const cookie of [await staff({ role: "support" }), await staff({})]) {
      expect((await call("/dashboard/legal", { cookie })).status).toBe(403);
      expect((await save(cookie, "privacy", "# Privacy\n\nWe sell everything we know about you.")).status).toBe(403);
    }
    const admin = await staff({ admin: true });
    const empty = await save(admin, "privacy", "   ");
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Write the page (at least 20 characters)");
    expect((await save(admin, "cookies", "# Cookies\n\nA page that does not exist.")).status).toBe(400);
    expect(await db.select().from(legalPages).where(eq(legalPages.slug, "privacy")).get()).toEqual(before);
  });
});
