// Releases as staff and members meet them: an admin uploads a release of several MB in parts with
// a progress bar and publishes it on the beta channel; a monthly member (beta included) downloads
// it and sees its SHA-256; a weekly member sees it locked, naming the plans that include it.
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
  await reloadUntilVisible(page, "/dashboard/subscriptions", page.locator("div.rounded-xl").filter({ hasText: `Vertex Rust — ${title}` }));
}

test("an admin uploads a release in parts; a monthly member downloads it with its checksum, a weekly member sees it locked", async ({ browser }) => {
  test.setTimeout(240_000);
  const version = `${Date.now() % 100000}.0.0-beta.1`;
  const bytes = Buffer.alloc(SIZE);
  for (let i = 0; i < SIZE; i++) bytes[i] = (i * 13) & 0xff;
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const file = join(tmpdir(), `${uniqueName("release")}.bin`);
  await writeFile(file, bytes);

  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/releases", { waitUntil: "networkidle" });
  await admin.getByLabel("File").setInputFiles(file);
  await admin.getByLabel("Version").fill(version);
  await admin.getByLabel("Channel").selectOption("beta");
  await admin.getByLabel("Release notes (Markdown)").fill("## New\n- Faster **aim** assist");
  await admin.getByRole("button", { name: "Upload" }).click();
  // The bar shows while the parts go up, then the release is listed with its checksum.
  await expect(admin.getByRole("progressbar", { name: "Upload progress" })).toBeVisible();
  await expect(admin.getByText(`SHA-256 ${sha256}`).first()).toBeVisible({ timeout: 120_000 });
  await admin.getByRole("button", { name: `Publish beta ${version}` }).click();
  await expect(admin.getByText("Published", { exact: true })).toBeVisible();
  await admin.close();

  await stockAsAdmin(browser, "Vertex Rust - 30 Days", [`E2E-MONTH-${uniqueName("m")}`]);
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`E2E-WEEK-${uniqueName("w")}`]);

  const monthlyContext = await browser.newContext();
  const monthly = await monthlyContext.newPage();
  await memberWithPlan(monthly, monthlyContext, /30 Days/, "30 Days");
  await monthly.goto("/dashboard/downloads", { waitUntil: "networkidle" });
  await expect(monthly.getByText(sha256).first()).toBeVisible();
  await expect(monthly.getByRole("heading", { name: "Faster aim assist" }).or(monthly.getByText("Faster aim assist")).first()).toBeVisible();
  const download = monthly.waitForEvent("download");
  await monthly.getByRole("link", { name: `Download Beta ${version}` }).click();
  const saved = await (await download).path();
  expect(createHash("sha256").update(await readFile(saved)).digest("hex")).toBe(sha256);
  await monthlyContext.close();

  const weeklyContext = await browser.newContext();
  const weekly = await weeklyContext.newPage();
  await memberWithPlan(weekly, weeklyContext, /1 Week/, "1 Week");
  await weekly.goto("/dashboard/downloads", { waitUntil: "networkidle" });
  await expect(weekly.getByText("Needs Beta Access, included in the Monthly and Lifetime plans").first()).toBeVisible();
  await expect(weekly.getByRole("link", { name: `Download Beta ${version}` })).toHaveCount(0);
  await expect(weekly.getByRole("link", { name: "See plans" }).first()).toBeVisible();
  await weeklyContext.close();
});
