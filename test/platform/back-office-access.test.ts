// The back office fails closed: its layout refuses every account without a staff role with 403
// before any page's own guard runs, so a staff page whose capability check was forgotten still
// shows a member nothing. The URLs come from the route table, so a page added later is covered.
import type { RouteConfigEntry } from "@react-router/dev/routes";
import { describe, expect, it } from "vitest";
import routes from "../../app/routes";
import { call, createAccount, signIn, unique } from "../helpers";

const BACK_OFFICE_LAYOUT = "routes/back-office/layout.tsx";

/** Every URL under the back-office layout, each route's parameters filled with a plausible value. */
function backOfficePaths(entries: RouteConfigEntry[], parent = "", inside = false): string[] {
  return entries.flatMap((entry) => {
    const path = entry.path ? `${parent}/${entry.path}` : parent;
    const within = inside || entry.file === BACK_OFFICE_LAYOUT;
    const own = within && entry.file !== BACK_OFFICE_LAYOUT && (entry.path || entry.index) ? [path] : [];
    return [...own, ...backOfficePaths(entry.children ?? [], path, within)];
  });
}

const SAMPLE_PARAMS: Record<string, string> = {
  id: crypto.randomUUID(),
  source: "shopify",
  reference: "1",
  email: "someone%40example.test",
};
const filled = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => SAMPLE_PARAMS[name] ?? "x");

describe("the back office", () => {
  const paths = backOfficePaths(routes).map(filled);

  it("is read from the route table, page by page", () => {
    expect(paths).toContain("/dashboard/manage-codes/stock");
    expect(paths).toContain("/dashboard/orders/shopify/1");
    expect(paths.length).toBeGreaterThanOrEqual(25);
  });

  it("refuses a member with 403 on every URL, its data and its actions, whatever the page's own guard says", async () => {
    const cookie = await signIn(await createAccount(), unique("ip"));
    const refused: string[] = [];
    for (const path of paths) {
      const asked = [
        ["GET", path, await call(path, { cookie })],
        ["GET", `${path}.data`, await call(`${path}.data`, { cookie })],
        ["POST", path, await call(path, { form: { intent: "add" }, cookie })],
        ["POST", `${path}.data`, await call(`${path}.data`, { form: { intent: "add" }, cookie })],
      ] as const;
      for (const [method, url, response] of asked) if (response.status !== 403) refused.push(`${method} ${url}: ${response.status}`);
    }
    expect(refused).toEqual([]);
  });

  it("keeps the dashboard's shell around the refusal, and lets staff through to each page's own check", async () => {
    const member = await createAccount();
    const html = await (await call("/dashboard/audit", { cookie: await signIn(member, unique("ip")) })).text();
    expect(html).toContain("You don&#x27;t have permission to access this page");
    expect(html).toContain(member.email);
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    expect((await call("/dashboard/audit", { cookie: support })).status).toBe(200);
    // Past the layout, the page's own capability still decides: sales are for admins.
    expect((await call("/dashboard/sales", { cookie: support })).status).toBe(403);
  });
});
