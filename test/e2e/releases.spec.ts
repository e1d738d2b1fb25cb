// Releases as staff and members meet them: an admin uploads a release of several MB in parts with
// a progress bar and publishes it on the beta channel; a monthly member (beta included) downloads
// it and sees its SHA-256; a weekly member sees it locked, naming the plans that include it. And a
// fresh install's seeded releases: locked with what to buy until a plan is bought, then downloaded
// and resumed.
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { logIn, openDemoCheckout, payDemoCheckout, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

// Three parts: 8 MiB, 8 MiB and the rest.
const SIZE = 16 * 1024 * 1024 + 300_000;

async function memberWithPlan(page: Page, context: BrowserContext, plan: RegExp, title: string) {
  await signUpAndLogIn(page, "rel");
  const checkout = await openDemoCheckout(page, context, "/product/vertex-rust", plan);
  await payDemoCheckout(checkout);
  await checkout.close();
  await reloadUntilVisible(page, "/dashboard/subscriptions", page.getByRole("article", { name: `Vertex Rust — ${title}` }));
}

test("an admin uploads a release in parts; a monthly member downloads it with its checksum, a weekly member sees it locked", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  // Newer than any release an earlier run left in the development server's database (the page lists
  // the newest of each channel): the seconds since late 2023, within a version part's nine digits.
  const version = `${Math.floor(Date.now() / 1000) - 1_700_000_000}.0.0-beta.1`;
  const bytes = Buffer.alloc(SIZE);
  for (let i = 0; i < SIZE; i++) bytes[i] = (i * 13) & 0xff;
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const file = join(tmpdir(), `${uniqueName("release")}.bin`);
  await writeFile(file, bytes);

  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/releases", { waitUntil: "networkidle" });
  await admin.getByLabel("File").setInputFiles(file);
  await admin.getByLabel("Product").selectOption("Vertex Rust");
  await admin.getByLabel("Version").fill(version);
  await admin.getByLabel("Channel").selectOption("beta");
  await admin.getByLabel("Release notes (Markdown)").fill("## New\n- Faster **aim** assist");
  await admin.getByRole("button", { name: "Upload" }).click();
  // The bar shows while the parts go up, then the release is listed with its checksum.
  await expect(admin.getByRole("progressbar", { name: "Upload progress" })).toBeVisible();
  await expect(admin.getByText(`SHA-256 ${sha256}`).first()).toBeVisible({ timeout: 120_000 });
  await admin.getByRole("button", { name: `Publish Vertex Rust beta ${version}` }).click();
  await expect(admin.getByText("Published", { exact: true })).toBeVisible();
  await admin.close();

  await stockAsAdmin(browser, "Vertex Rust - 30 Days", [`E2E-MONTH-${uniqueName("m")}`]);
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`E2E-WEEK-${uniqueName("w")}`]);

  const monthlyContext = await browser.newContext();
  const monthly = await monthlyContext.newPage();
  await memberWithPlan(monthly, monthlyContext, /30 Days/, "30 Days");
  await monthly.goto("/dashboard/downloads", { waitUntil: "networkidle" });
  await expect(monthly.getByText(sha256).first()).toBeVisible();
  await expect(
    monthly.getByRole("heading", { name: "Faster aim assist" }).or(monthly.getByText("Faster aim assist")).first(),
  ).toBeVisible();
  const download = monthly.waitForEvent("download");
  await monthly.getByRole("link", { name: `Download Vertex Rust Beta ${version}` }).click();
  const saved = await (await download).path();
  expect(
    createHash("sha256")
      .update(await readFile(saved))
      .digest("hex"),
  ).toBe(sha256);
  await monthlyContext.close();

  const weeklyContext = await browser.newContext();
  const weekly = await weeklyContext.newPage();
  await memberWithPlan(weekly, weeklyContext, /1 Week/, "1 Week");
  await weekly.goto("/dashboard/downloads", { waitUntil: "networkidle" });
  await expect(weekly.getByText("Needs Beta Access, included in the Monthly and Lifetime plans").first()).toBeVisible();
  await expect(weekly.getByRole("link", { name: `Download Vertex Rust Beta ${version}` })).toHaveCount(0);
  await expect(weekly.getByRole("link", { name: "See plans" }).first()).toBeVisible();
  await weeklyContext.close();
});

test("on a fresh install a member sees the demo releases locked with what to buy, buys a plan, then downloads the stable release and resumes it", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`E2E-FRESH-${uniqueName("w")}`]);
  // A member who signs up now holds no licence, as the demo member does on a fresh install (other
  // journeys buy plans as the demo member, so it is not fresh by the time this one runs).
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUpAndLogIn(page, "fresh");
  await page.goto("/dashboard/downloads", { waitUntil: "networkidle" });
  await expect(page.getByText("No Active Subscription")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Vertex Rust · Stable" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Vertex Rust · Beta" })).toBeVisible();
  await expect(page.getByText("Needs a Vertex Rust licence: the Weekly, Monthly or Lifetime plan").first()).toBeVisible();
  await expect(page.getByText("Needs a Vertex Rust licence with Beta Access: the Monthly or Lifetime plan").first()).toBeVisible();
  await expect(page.getByRole("link", { name: /^Download Vertex Rust / })).toHaveCount(0);

  const checkout = await openDemoCheckout(page, context, "/product/vertex-rust", /1 Week/);
  await payDemoCheckout(checkout);
  await checkout.close();
  const download = page.getByRole("link", { name: /^Download Vertex Rust Stable / });
  await reloadUntilVisible(page, "/dashboard/downloads", download);
  await expect(page.getByText("No Active Subscription")).toHaveCount(0);
  // Beta Access is not in the weekly plan: still locked, naming the plans that include it.
  await expect(page.getByText("Needs Beta Access, included in the Monthly and Lifetime plans").first()).toBeVisible();

  // The toast is the page's script: a click before the page has hydrated downloads without one.
  await page.waitForLoadState("networkidle");
  const started = page.waitForEvent("download");
  await download.click();
  await expect(page.getByText("Download started successfully!")).toBeVisible();
  const whole = await readFile(await (await started).path());
  const sha256 = createHash("sha256").update(whole).digest("hex");
  await expect(page.getByText(sha256).first()).toBeVisible();

  // A cut-off download resumes from where it stopped: the rest of the bytes, with the checksum.
  const href = await download.getAttribute("href");
  const resumed = await page.request.get(href!, { headers: { Range: "bytes=10-" } });
  expect(resumed.status()).toBe(206);
  expect(resumed.headers()["content-range"]).toBe(`bytes 10-${whole.length - 1}/${whole.length}`);
  expect(resumed.headers()["x-checksum-sha256"]).toBe(sha256);
  expect(Buffer.compare(await resumed.body(), whole.subarray(10))).toBe(0);
  await context.close();
});
