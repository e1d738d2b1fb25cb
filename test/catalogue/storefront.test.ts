import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusUpdates } from "~/server/platform/db/schema.server";
import { call, cookieFrom, createAccount, db, ORIGIN, signIn, unique } from "../helpers";
import ogImage from "../../public/images/og.png?inline";
import wholeStylesheet from "~/app.css?inline";
import stylesheetUrl from "~/app.css?url";

/** The size of a text compressed as a browser receives it. */
async function gzipSize(text: string): Promise<number> {
  const compressed = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(compressed).arrayBuffer()).byteLength;
}

const PUBLIC_PAGES = [
  "/",
  "/products",
  "/product/vertex-rust",
  "/status",
  "/support",
  "/affiliate",
  "/sitemap.xml",
  "/robots.txt",
  "/api/upsell",
];

describe("edge caching", () => {
  for (const path of PUBLIC_PAGES) {
    it(`${path} is public, cacheable and cookie-free, even for a signed-in visitor`, async () => {
      const account = await createAccount();
      const session = await signIn(account, unique("ip"));
      const response = await call(`${path}${path.includes("?") ? "&" : "?"}v=${unique("c")}`, { cookie: `${session}; __Host-toast=abc` });
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
      expect(response.headers.has("Set-Cookie")).toBe(false);
      const body = await response.text();
      // The page never mentions who asked for it.
      expect(body).not.toContain(account.email);
      expect(body).not.toContain(account.username);
    });
  }

  it("serves the second request for a page from the Worker's cache", async () => {
    const path = `/support?c=${unique("c")}`;
    const first = await call(path);
    expect(first.headers.get("X-Cache")).toBe("MISS");
    const firstBody = await first.text();
    // The cache write finishes in the background; ask until it is there.
    let second = await call(path);
    for (let i = 0; i < 20 && second.headers.get("X-Cache") !== "HIT"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      second = await call(path);
    }
    expect(second.headers.get("X-Cache")).toBe("HIT");
    expect(second.headers.get("Cache-Control")).toMatch(/^public, max-age=60, stale-while-revalidate=600$/);
    // Same bytes, same CSP nonce as the copy it was rendered with.
    expect(await second.text()).toBe(firstBody);
    expect(second.headers.get("Content-Security-Policy")).toBe(first.headers.get("Content-Security-Policy"));
  });

  for (const path of ["/auth", "/api/viewer", "/dashboard"]) {
    it(`${path} is private and never stored`, async () => {
      const account = await createAccount();
      const response = await call(path, { cookie: await signIn(account, unique("ip")) });
      expect(response.headers.get("Cache-Control")).toBe("private, no-store");
      expect(response.headers.get("X-Cache")).toBeNull();
    });
  }

  /** Puts a copy of a page in the Worker's page cache, as the Worker stores one. */
  async function plant(path: string, body: string) {
    const cache = await caches.open("pages");
    const headers = {
      "Content-Type": "text/html",
      "Cache-Control": "public, max-age=660",
      "x-edge-stored-at": String(Date.now()),
      "x-edge-cache-control": "public, max-age=60, stale-while-revalidate=600",
    };
    await cache.put(`${ORIGIN}${path}`, new Response(body, { headers }));
  }

  it("never answers a signed-in page or its data from the page cache, even with a copy there", async () => {
    const planted = unique("planted");
    // The copy is one the Worker would serve: under a public page's path, it is.
    const publicPath = `/support?c=${unique("c")}`;
    await plant(publicPath, planted);
    const served = await call(publicPath);
    expect(served.headers.get("X-Cache")).toBe("HIT");
    expect(await served.text()).toBe(planted);

    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    // The router also answers the hub under another case and under escapes.
    const pages = [
      "/dashboard",
      "/dashboard/subscriptions",
      "/dashboard.data",
      "/dashboard/subscriptions.data",
      "/dashboard/_.data",
      "/Dashboard",
      "/%64ashboard/subscriptions",
      "/DASHBOARD/subscriptions.data",
    ];
    for (const page of pages) {
      const path = `${page}?c=${unique("c")}`;
      await plant(path, planted);
      const response = await call(path, { cookie });
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toBe("private, no-store");
      expect(response.headers.get("X-Cache")).toBeNull();
      expect(await response.text()).not.toContain(planted);
    }
  });

  it("keeps the answer to a form post private even on a public page", async () => {
    const response = await call("/status", { form: { title: "x", description: "y" } });
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
  });

  it("does not cache a missing product", async () => {
    const response = await call(`/product/${unique("missing")}`);
    expect(response.status).toBe(404);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
  });
});

describe("status page", () => {
  it("lists the 10 latest updates, newest first, with the specification's date format", async () => {
    const base = Date.UTC(2026, 0, 1, 9, 7);
    for (let i = 0; i < 12; i++) {
      await db
        .insert(statusUpdates)
        .values({ title: `Update number ${i}`, description: "d", type: "update", createdAt: base + i * 60_000 });
    }
    const html = await (await call(`/status?list=${unique("l")}`)).text();
    const recent = html.slice(html.indexOf("Recent Updates"));
    const shown = [...recent.matchAll(/<h3[^>]*>([^<]*)<\/h3>/g)].map((m) => m[1]);
    expect(shown).toHaveLength(10);
    const ours = shown.filter((t) => t!.startsWith("Update number"));
    // Only the newest of ours make the list, newest first (other tests may add newer updates).
    expect(ours).toEqual(Array.from({ length: ours.length }, (_, i) => `Update number ${11 - i}`));
    expect(html).toContain("Jan 01, 2026 at 09:18");
  });

  it("refuses a post from a signed-out visitor (401), and from a member or support, whose role lacks status.post (403)", async () => {
    const before = await db.select().from(statusUpdates).orderBy(desc(statusUpdates.id)).get();
    expect((await call("/status", { form: { title: "Hacked", description: "x" } })).status).toBe(401);
    for (const account of [await createAccount(), await createAccount({ role: "support" })]) {
      const refused = await call("/status", { form: { title: "Hacked", description: "x" }, cookie: await signIn(account, unique("ip")) });
      expect(refused.status).toBe(403);
    }
    expect((await db.select().from(statusUpdates).orderBy(desc(statusUpdates.id)).get())?.id).toBe(before?.id);
  });

  it("requires a title and a description", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    for (const form of [{ title: "", description: "x" }, { title: "x", description: "   " }, { title: "x" }]) {
      const response = await call("/status", { form: form as Record<string, string>, cookie });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Please fill in all fields");
    }
    const badType = await call("/status", { form: { title: "x", description: "y", type: "outage" }, cookie });
    expect(badType.status).toBe(400);
    expect(await badType.text()).toContain("Choose update, maintenance or incident");
    const long = await call("/status", { form: { title: "x".repeat(121), description: "y" }, cookie });
    expect(long.status).toBe(400);
    const text = await long.text();
    expect(text).toContain("Failed to post update");
    expect(text).toContain("Title must be at most 120 characters");
  });

  it("posts an admin's update (type defaults to update) and shows it at once, past the cache", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    await call("/status"); // warm the cache
    const title = `Patch ${unique("p")}`;
    const response = await call("/status", { form: { title, description: "Loader updated" }, cookie });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Status update posted successfully!");
    const row = await db.select().from(statusUpdates).orderBy(desc(statusUpdates.id)).get();
    expect(row).toMatchObject({ title, type: "update", authorId: admin.id });
    expect(await (await call("/status")).text()).toContain(title);
  });
});

describe("status per product", () => {
  const RUST = "gid://shopify/Product/8800000000001";
  const SPOOFER = "gid://shopify/Product/8800000000002";
  const badgeOf = (html: string, title: string) => {
    const card = html.slice(html.indexOf(`>${title}</h3>`));
    return /<span class="inline-flex[^"]*">([^<]+)<\/span>/.exec(card)?.[1];
  };

  it("shows every product with its own status, set by a post for that product only, on the status page and the product page, past the cache", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    await call("/status");
    await call("/product/vertex-rust");
    const posted = await call("/status", {
      form: {
        title: `Detected ${unique("d")}`,
        description: "Do not play until the next update",
        type: "incident",
        product: RUST,
        productStatus: "detected",
      },
      cookie,
    });
    expect(posted.status).toBe(200);
    const html = await (await call("/status")).text();
    expect(badgeOf(html, "Vertex Rust")).toBe("Detected");
    const product = await (await call("/product/vertex-rust")).text();
    expect(product).toContain("Status: Detected. See the status page");
    expect(product).not.toContain("Status: Undetected");

    // Back to Undetected with a later post; another product's badge never moved.
    await call("/status", {
      form: { title: `Fixed ${unique("f")}`, description: "Safe again", product: RUST, productStatus: "undetected" },
      cookie,
    });
    const after = await (await call("/status")).text();
    expect(badgeOf(after, "Vertex Rust")).toBe("Undetected");
    expect(await (await call("/product/vertex-rust")).text()).toContain("Status: Undetected. See the status page");
    expect((await db.select().from(statusUpdates).where(eq(statusUpdates.productId, SPOOFER)).all()).length).toBe(0);
  });

  it("changes no product's status with a maintenance post that sets none", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    await call("/status", {
      form: { title: `Rust fine ${unique("r")}`, description: "All good", product: RUST, productStatus: "undetected" },
      cookie,
    });
    const posted = await call("/status", {
      form: { title: `Maintenance ${unique("m")}`, description: "Servers restart tonight", type: "maintenance", product: RUST },
      cookie,
    });
    expect(posted.status).toBe(200);
    const html = await (await call("/status")).text();
    expect(badgeOf(html, "Vertex Rust")).toBe("Undetected");
  });

  it("refuses a status without its product, and a product the catalogue does not sell", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    const noProduct = await call("/status", { form: { title: "x", description: "y", productStatus: "down" }, cookie });
    expect(noProduct.status).toBe(400);
    expect(await noProduct.text()).toContain("Choose the product whose status changes");
    const unknown = await call("/status", {
      form: { title: "x", description: "y", product: "gid://shopify/Product/1", productStatus: "down" },
      cookie,
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("This product is not in the catalogue");
    const badStatus = await call("/status", { form: { title: "x", description: "y", product: RUST, productStatus: "working" }, cookie });
    expect(badStatus.status).toBe(400);
    expect(await badStatus.text()).toContain("Choose Undetected, Updating, Detected or Down");
  });
});

describe("search engines and sharing", () => {
  it("shares the home page with an absolute 1200×630 PNG preview", async () => {
    const html = await (await call("/")).text();
    expect(html).toMatch(/<meta property="og:image" content="https:\/\/shop\.test\/images\/og\.png"/);
    expect(html).toContain('<meta property="og:image:width" content="1200"');
    expect(html).toContain('<meta property="og:image:height" content="630"');
    // The file itself: a PNG whose header says 1200 × 630.
    const bytes = Uint8Array.from(atob(ogImage.split(",")[1]!), (c) => c.charCodeAt(0));
    const header = new DataView(bytes.buffer);
    expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
    expect([header.getUint32(16), header.getUint32(20)]).toEqual([1200, 630]);
  });

  it("describes a product with Open Graph tags and Product/Offer JSON-LD", async () => {
    const html = await (await call("/product/vertex-rust")).text();
    expect(html).toContain("<title>Vertex Rust | Vertex</title>");
    expect(html).toMatch(/<meta property="og:title" content="Vertex Rust"/);
    expect(html).toMatch(/<meta property="og:image" content="https:\/\/shop\.test\/images\/products\/vertex-rust-1\.webp"/);
    const json = html.match(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/)?.[1];
    const ld = JSON.parse(json!);
    expect(ld["@type"]).toBe("Product");
    expect(ld.offers).toHaveLength(3);
    expect(ld.offers[1]).toMatchObject({
      "@type": "Offer",
      price: "89.99",
      priceCurrency: "USD",
      availability: "https://schema.org/InStock",
    });
  });

  it("shows the product's thumbnails from small renditions and only the main picture at full size", async () => {
    const html = await (await call("/product/vertex-rust")).text();
    const sources = (fragment: string) => [...fragment.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1] ?? "");
    const strip = html.match(/aria-label="Product images">([\s\S]*?)<\/div>/)?.[1] ?? "";
    expect(sources(strip)).toEqual([1, 2, 3, 4, 5].map((n) => `/images/products/vertex-rust-${n}-240.webp`));
    expect(sources(html).filter((src) => !src.endsWith("-240.webp"))).toEqual(["/images/products/vertex-rust-1.webp"]);
  });

  it("lists every product in the sitemap and points robots at it", async () => {
    const sitemap = await (await call("/sitemap.xml")).text();
    expect(sitemap).toContain("<loc>https://shop.test/product/vertex-rust</loc>");
    expect(sitemap).toContain("<loc>https://shop.test/product/vertex-hwid-spoofer</loc>");
    const robots = await (await call("/robots.txt")).text();
    expect(robots).toContain("Sitemap: https://shop.test/sitemap.xml");
    expect(robots).toContain("Disallow: /dashboard");
  });

  it("answers an unknown product handle with 404", async () => {
    const response = await call("/product/does-not-exist");
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("Oops! Page not found");
  });
});

describe("home page", () => {
  it("renders the plan cards from the first product: weekly and monthly, the monthly marked BEST VALUE", async () => {
    const html = await (await call(`/?h=${unique("h")}`)).text();
    expect(html).toContain("$30/wk");
    expect(html).toContain("$90/mo");
    expect(html).toContain("BEST VALUE");
    expect(html).toContain('href="/product/vertex-rust"');
  });

  it("offers the spoofer as the cart's recommended add-on", async () => {
    const body = (await (await call("/api/upsell")).json()) as { upsell: { productTitle: string; variantId: string } };
    expect(body.upsell.productTitle).toBe("Vertex HWID Spoofer");
    expect(body.upsell.variantId).toMatch(/^gid:\/\/shopify\/ProductVariant\//);
  });

  it("hands a flash toast only to the page it is for", async () => {
    // A verification link redirects to /auth with its toast.
    const redirect = await call("/auth/verify?token=not-a-real-token");
    expect(redirect.headers.get("Location")).toBe("/auth");
    const cookie = cookieFrom(redirect, "__Host-toast")!;
    // The page the browser is leaving asks too: it gets nothing and clears nothing.
    const other = await call("/api/viewer?page=%2Fdev%2Fmail", { cookie });
    expect(((await other.json()) as { toast: unknown }).toast).toBeNull();
    expect(cookieFrom(other, "__Host-toast")).toBeNull();
    // The page it is for gets it, once.
    const landed = await call("/api/viewer?page=%2Fauth", { cookie });
    expect(((await landed.json()) as { toast: { title: string } }).toast.title).toBe("Verification Failed");
    expect(cookieFrom(landed, "__Host-toast")).toBe("__Host-toast=");
  });

  it("clears a flash toast once it has been shown", async () => {
    const response = await call("/api/viewer", { cookie: "__Host-toast=eyJ0aXRsZSI6IkhpIn0%3D" });
    expect(((await response.json()) as { toast: { title: string } }).toast.title).toBe("Hi");
    expect(cookieFrom(response, "__Host-toast")).toBe("__Host-toast=");
  });
});

describe("first paint", () => {
  it("carries the first screen's CSS and loads the whole stylesheet, a file, after the paint", async () => {
    const whole = await gzipSize(wholeStylesheet);
    for (const path of ["/", "/products", "/product/vertex-rust"]) {
      const html = await (await call(path)).text();
      const head = html.slice(0, html.indexOf("</head>"));
      // First thing in the head, and the real thing: the utilities and the shop's own rules the first screen draws.
      expect(head).toMatch(/^<!DOCTYPE html><html lang="en"><head><style>/);
      const inlined = /^<!DOCTYPE html><html lang="en"><head><style>([\s\S]*?)<\/style>/.exec(head)![1]!;
      expect(inlined).toMatch(/\.text-accent\s*\{/);
      expect(inlined).toMatch(/\.hero-poster\s*\{/);
      // Not the whole stylesheet: a part of it, small enough for the first round trips.
      expect(inlined.length).toBeLessThan(wholeStylesheet.length * 0.8);
      expect(await gzipSize(inlined)).toBeLessThan(whole * 0.9);
      expect(await gzipSize(inlined)).toBeLessThanOrEqual(14 * 1024);
      // The whole stylesheet is the built file: never blocking the paint, linked for visitors without scripts,
      // and added by the loader once the page has painted.
      // (React Router's own critical-CSS link exists only where Vite serves the modules, as in these tests.)
      const blocking = head.replace(/<noscript>.*?<\/noscript>/g, "").replace(/<link data-react-router-critical-css[^>]*>/, "");
      expect(blocking).not.toMatch(/<link[^>]*rel="stylesheet"/);
      expect(head).toContain(`<noscript><link rel="stylesheet" href="${stylesheetUrl}"></noscript>`);
      expect(stylesheetUrl).toMatch(/\.css$/);
      expect(html).toContain(`"text/x-after-paint", "modulepreload-after-paint", ${JSON.stringify(stylesheetUrl)}`);
    }
  });

  it("links the whole stylesheet on the pages the first screen's CSS does not cover", async () => {
    const session = await signIn(await createAccount(), unique("ip"));
    for (const [path, cookie] of [["/dashboard", session], ["/auth"], ["/support"]] as const) {
      const html = await (await call(path, { cookie })).text();
      const head = html.slice(0, html.indexOf("</head>"));
      expect(head).toMatch(new RegExp(`^<!DOCTYPE html><html lang="en"><head><link rel="stylesheet" href="${stylesheetUrl}">`));
      expect(head).not.toContain("<style>");
    }
  });

  it("holds the hydration scripts until the page has painted", async () => {
    for (const path of ["/", "/product/vertex-rust", "/auth"]) {
      const response = await call(path);
      const html = await response.text();
      // Nothing asks for a script before the first paint: no live preload hint, no runnable module.
      expect(html).not.toContain('rel="modulepreload"');
      expect(html).not.toMatch(/<script[^>]*type="module"/);
      // The hints are held too, for the loader to turn back on: every module the page imports.
      const hints = [...html.matchAll(/<link rel="modulepreload-after-paint" href="([^"]+)"/g)].map((m) => m[1]);
      expect(hints.length).toBeGreaterThan(0);
      // React Router's module script is still there, inert, followed by the loader that starts it.
      const held = /<script nonce="([^"]+)" type="text\/x-after-paint">([^<]*)<\/script><script nonce="([^"]+)">([^<]*)<\/script>/.exec(
        html,
      );
      expect(held).not.toBeNull();
      const [, heldNonce, moduleSource, loaderNonce, loader] = held!;
      expect(moduleSource).toMatch(/import \* as route0 from "[^"]+";/);
      expect(loader).toContain('"text/x-after-paint", "modulepreload-after-paint"');
      for (const route of moduleSource!.matchAll(/from "([^"]+)"/g)) expect(hints).toContain(route[1]);
      // Both carry the nonce the CSP allows (and the copy the loader makes inherits it).
      expect(response.headers.get("Content-Security-Policy")).toContain(`'nonce-${heldNonce}'`);
      expect(loaderNonce).toBe(heldNonce);
    }
  });

  it("paints the hero's poster from the document itself, before any video", async () => {
    const html = await (await call("/")).text();
    // The small poster is a data URL inside the first screen's CSS: no request before the paint.
    expect(html).toMatch(/\.hero-poster\s*\{[^}]*url\("?data:image\/webp;base64,/);
    expect(html).toMatch(/<div[^>]*class="hero-poster /);
    // The player is added only in the browser, after load, and only shown once it plays.
    expect(html).not.toContain("youtube-nocookie.com/embed");
  });
});
