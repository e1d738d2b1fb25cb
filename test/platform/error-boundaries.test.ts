// What a page that cannot be shown looks like, through the Worker: inside the dashboard the shell
// (its sidebar) stays around a calm 403 or 404, and an unexpected failure is logged under a
// reference the page shows; in the storefront the site's frame stays around the 404.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../workers/app";
import { call, createAccount, ORIGIN, signIn, unique } from "../helpers";

/** A page's text as a reader sees it: scripts, styles, tags and React's text separators gone, spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ");
const SIDEBAR = '<nav aria-label="Dashboard"';

const signedIn = async (role?: "admin" | "support") => {
  const account = await createAccount(role ? { role } : {});
  return { account, cookie: await signIn(account, unique("ip")) };
};

afterEach(() => vi.restoreAllMocks());

describe("inside the dashboard the sidebar stays", () => {
  it("answers a dashboard path no page claims with 404, the calm message and the sidebar", async () => {
    const { account, cookie } = await signedIn();
    const response = await call(`/dashboard/${unique("nowhere")}`, { cookie });
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain(SIDEBAR);
    const text = textOf(html);
    expect(text).toContain(account.email);
    expect(text).toContain("Not found There is no such page in your dashboard.");
    expect(text).toContain("Back to the dashboard");
    expect(text).not.toContain("Something went wrong");
    expect(html).toContain("<title>Page not found</title>");
  });

  it("answers a record that does not exist with 404 inside the shell, the staff links included", async () => {
    const { cookie } = await signedIn("admin");
    for (const path of [
      `/dashboard/customers/${crypto.randomUUID()}`,
      "/dashboard/orders/shopify/999999999999",
      "/dashboard/orders/paypal/1",
    ]) {
      const response = await call(path, { cookie });
      expect([path, response.status]).toEqual([path, 404]);
      const html = await response.text();
      expect(html).toContain(SIDEBAR);
      expect(html).toContain('href="/dashboard/manage-codes"');
      expect(textOf(html)).toContain("The order, customer or page you asked for does not exist.");
    }
  });

  it("answers a member on a staff page with 403, Access Denied and the member's own sidebar", async () => {
    const { account, cookie } = await signedIn();
    const response = await call("/dashboard/manage-codes", { cookie });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(html).toContain(SIDEBAR);
    expect(html).toContain('href="/dashboard/subscriptions"');
    expect(html).not.toContain('href="/dashboard/orders"');
    const text = textOf(html);
    expect(text).toContain("Access Denied You don't have permission to access this page");
    expect(text).toContain(account.email);
  });

  it("answers support on an admins' page with 403 inside a sidebar that lists what support may open", async () => {
    const { cookie } = await signedIn("support");
    const response = await call("/dashboard/sales", { cookie });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(html).toContain(SIDEBAR);
    expect(html).toContain('href="/dashboard/orders"');
    expect(html).not.toContain('href="/dashboard/sales"');
    expect(textOf(html)).toContain("Access Denied");
  });

  it("logs an unexpected failure under a reference, and shows that reference inside the shell with a 500", async () => {
    const { cookie } = await signedIn("admin");
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    // The reseller ledger's table fails to answer (the sales page reads it); sessions and everything else still work.
    const DB = new Proxy(env.DB, {
      get(target, property) {
        if (property === "prepare") {
          return (query: string) => {
            if (query.includes("reseller_ledger")) throw new Error("D1_ERROR: the ledger is unreachable");
            return target.prepare(query);
          };
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const request = new Request(`${ORIGIN}/dashboard/sales`, { headers: { Cookie: cookie, "CF-Connecting-IP": "198.51.100.7" } });
    const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, DB }, createExecutionContext());
    expect(response.status).toBe(500);
    const html = await response.text();
    expect(html).toContain(SIDEBAR);
    const text = textOf(html);
    expect(text).toContain("Something went wrong");
    const reference = /tell support this reference: ([0-9a-f]{8})/.exec(text)?.[1];
    expect(reference).toBeDefined();
    const lines = logged.mock.calls.map((args) => args.map(String).join(" "));
    expect(lines.find((line) => line.includes(`[${reference}]`))).toMatch(/GET \/dashboard\/sales.*the ledger is unreachable/);
    // The error's own words stay in the log, not on the page.
    expect(text).not.toContain("unreachable");
  });
});

describe("in the storefront the site's frame stays", () => {
  it("answers an unknown path with the storefront's 404 between the site's header and footer", async () => {
    const response = await call(`/${unique("nowhere")}`);
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).not.toContain(SIDEBAR);
    expect(html).toContain("<footer");
    // The page's own title is never asked for when its loader throws: the area names the 404.
    expect(html).toContain("<title>Page not found</title>");
    expect(textOf(html)).toContain("Oops! Page not found Return to Home");
  });
});
