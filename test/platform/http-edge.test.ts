import { exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { MAX_FORM_BYTES } from "~/http/request-body.server";
import { call, createAccount, pulledBody, signIn, unique } from "../helpers";

describe("cross-site request forgery", () => {
  const form = { intent: "login", emailOrUsername: "someone@example.test", password: "whatever-1" };

  it("refuses a POST whose Origin is another site, before anything runs", async () => {
    const response = await call("/auth", { form, headers: { Origin: "https://evil.example" } });
    expect(response.status).toBe(403);
  });

  it("refuses a POST the browser marks as cross-site", async () => {
    const response = await call("/auth", { form, headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://shop.test" } });
    expect(response.status).toBe(403);
  });

  it("refuses a POST that says nothing about where it comes from", async () => {
    const response = await exports.default.fetch(new Request("https://shop.test/auth/logout", { method: "POST" }));
    expect(response.status).toBe(403);
  });

  it("refuses a cross-site logout, leaving the session alone", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const forged = await call("/auth/logout", { method: "POST", cookie, headers: { Origin: "https://evil.example" } });
    expect(forged.status).toBe(403);
    expect((await call("/dashboard", { cookie })).status).toBe(200);
  });

  it("accepts the same request from our own pages", async () => {
    const response = await call("/auth", { form, headers: { "Sec-Fetch-Site": "same-origin" }, ip: unique("ip") });
    expect(response.status).toBe(401);
  });
});

describe("dashboard access", () => {
  for (const path of ["/dashboard", "/dashboard/manage-codes", "/dashboard.data", "/dashboard/manage-codes.data"]) {
    it(`sends a signed-out visitor from ${path} to /auth`, async () => {
      const response = await call(path);
      const location = response.headers.get("Location") ?? "";
      // Document requests get an HTTP redirect; data requests get React Router's redirect payload.
      if (path.endsWith(".data")) {
        expect([202, 204, 302]).toContain(response.status);
        expect(response.headers.get("X-Remix-Redirect") ?? (await response.text())).toContain("/auth");
      } else {
        expect(response.status).toBe(302);
        expect(location).toBe("/auth");
      }
    });
  }

  it("shows the dashboard to a signed-in member, privately", async () => {
    const account = await createAccount();
    const response = await call("/dashboard", { cookie: await signIn(account, unique("ip")) });
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const html = await response.text();
    expect(html).toContain("Hub");
    expect(html).toContain(account.email);
    expect(html).not.toContain('/dashboard/manage-codes"');
  });

  it("answers 403 to a member on an admin page, and shows Access Denied", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const response = await call("/dashboard/manage-codes", { cookie });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("Access Denied");
    const data = await call("/dashboard/manage-codes.data", { cookie });
    expect(data.status).toBe(403);
  });

  it("opens the admin page and the Manage Codes link to an admin", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    const response = await call("/dashboard/manage-codes", { cookie });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("MANAGE CODES");
    expect(await (await call("/dashboard", { cookie })).text()).toContain("/dashboard/manage-codes");
  });

  it("sends a signed-in member away from /auth", async () => {
    const account = await createAccount();
    const response = await call("/auth", { cookie: await signIn(account, unique("ip")) });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
  });
});

describe("every HTML response", () => {
  it("carries the security headers, with a nonce the page's scripts use", async () => {
    const response = await call("/auth");
    const csp = response.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    const nonce = csp.match(/'nonce-([^']+)'/)?.[1];
    expect(nonce).toBeDefined();
    expect(response.headers.get("Strict-Transport-Security")).toContain("max-age=");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Frame-Options")).toBe("DENY");
    expect(response.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
    // Every executable inline script carries the nonce, or is a static one allowed by its hash.
    const html = await response.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].filter(
      ([, attrs]) => !attrs!.includes("application/ld+json"),
    );
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      if (attrs!.includes(`nonce="${nonce}"`)) continue;
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
      expect(csp).toContain(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    }
  });

  it("uses a fresh nonce for every response", async () => {
    const a = (await call("/auth")).headers.get("Content-Security-Policy");
    const b = (await call("/auth")).headers.get("Content-Security-Policy");
    expect(a).not.toBe(b);
  });

  it("answers an unknown path with a 404 page", async () => {
    const response = await call(`/${unique("nowhere")}/deeper`);
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain("Oops! Page not found");
    expect(html).toContain("Return to Home");
  });
});

describe("form bodies", () => {
  const actions = [
    "/auth",
    "/auth/2fa",
    "/api/crypto-orders",
    "/dashboard/resell",
    "/dashboard/2fa",
    "/dashboard/manage-codes/stock",
    "/dashboard/manage-codes/crypto-orders",
    "/dashboard/releases",
    "/dashboard/releases/uploads",
    "/status",
    "/checkout/demo/unknown",
  ];
  const post = (path: string, cookie: string, body: BodyInit, contentType: string) =>
    exports.default.fetch(
      new Request(`https://shop.test${path}`, {
        method: "POST",
        headers: { Origin: "https://shop.test", Cookie: cookie, "Content-Type": contentType, "CF-Connecting-IP": unique("ip") },
        body,
      }),
    );

  it("answers a body that is not a form with 400, on every form action", async () => {
    const cookie = await signIn(await createAccount({ admin: true }), unique("ip"));
    for (const path of actions) {
      const response = await post(path, cookie, "--nope\r\nnot a part", "multipart/form-data; boundary=nope");
      expect([path, response.status]).toEqual([path, 400]);
    }
  });

  it("reads a body sent without a declared length only up to the limit", async () => {
    const cookie = await signIn(await createAccount({ admin: true }), unique("ip"));
    const streamOf = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      return new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 16 * 1024) controller.enqueue(bytes.slice(i, i + 16 * 1024));
          controller.close();
        },
      });
    };
    const chunk = 16 * 1024;
    // 100 MB if it were read to the end.
    const huge = pulledBody("A".repeat(chunk), 6400);
    const response = await post("/dashboard/manage-codes/stock", cookie, huge.stream, "application/x-www-form-urlencoded");
    expect(response.status).toBe(413);
    expect(await response.text()).toContain("This form is too large.");
    await vi.waitFor(() => expect(huge.cancelled()).toBe(true), { timeout: 5000 });
    expect(huge.pulledBytes()).toBeLessThanOrEqual(MAX_FORM_BYTES + 4 * chunk);
    const small = await post(
      "/dashboard/manage-codes/stock",
      cookie,
      streamOf("intent=delete&id=abc"),
      "application/x-www-form-urlencoded",
    );
    expect(small.status).toBe(400);
    expect(await small.text()).toContain("Unknown code");
  });

  it("answers an oversized text form with 413 before reading it", async () => {
    const cookie = await signIn(await createAccount({ admin: true }), unique("ip"));
    const huge = `intent=add&codes=${"A".repeat(600 * 1024)}`;
    for (const path of actions) {
      const response = await post(path, cookie, huge, "application/x-www-form-urlencoded");
      expect([path, response.status]).toEqual([path, 413]);
    }
  });
});
