// Reviews from verified buyers end to end: a member buys a key, uses it, and a day later (the
// development build's test clock) reviews the product from its page and sees the review and the
// new average; staff hide it with a reason and it leaves the page and its average.
import { expect, type Page, test } from "@playwright/test";
import { LicenceClient } from "../../sdk/typescript/src/licence-client";
import { buyWeeklyByWebhook, logIn, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

/** The product page's stated average and count of reviews. */
async function rating(page: Page) {
  const summary = page.getByTestId("review-average");
  await expect(summary).toBeVisible();
  return { average: Number(await summary.getAttribute("data-average")), count: Number(await summary.getAttribute("data-count")) };
}

test("a buyer who used their key for a day reviews the product, and staff hide the review", async ({ page, browser, baseURL }) => {
  test.setTimeout(180_000);
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`E2E-REV-${uniqueName("r").toUpperCase()}`]);
  const member = await signUpAndLogIn(page, "reviewer");

  // Before buying, the product page says who may review.
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await expect(page.getByTestId("review-why-not")).toContainText("Reviews come from buyers");
  const before = await rating(page);

  // Bought, and used once on a PC.
  await buyWeeklyByWebhook(baseURL!, member.email);
  const card = page.getByRole("article", { name: "Vertex Rust — 1 Week" });
  await reloadUntilVisible(page, "/dashboard/subscriptions", card);
  const key = (await card.getByRole("button", { name: "Copy product key" }).locator("xpath=..").textContent())?.trim();
  const { publicKey } = (await (await fetch(new URL("/api/v1/licences/signing-key", baseURL))).json()) as { publicKey: string };
  const client = new LicenceClient({ baseUrl: baseURL!, publicKey });
  expect(await client.check(key!, `E2E-PC-${uniqueName("pc")}`)).toMatchObject({ outcome: "valid" });

  // The same day: not yet.
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await expect(page.getByTestId("review-why-not")).toContainText("you can review this product from");

  // A day later, the form; a review too short is refused next to its field.
  await page.goto("/dev/clock");
  await page.getByLabel("Days ahead").fill("1");
  await page.getByRole("button", { name: "Set the clock" }).click();
  await expect(page.getByText("This browser is 1 day(s) ahead.")).toBeVisible();
  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await page.getByLabel("1 star", { exact: true }).check();
  await page.getByLabel("Your review").fill("Meh");
  await page.getByRole("button", { name: "Post review" }).click();
  await expect(page.getByText("Tell other buyers a little more (at least 10 characters)").first()).toBeVisible();
  const words = `Crashed on start for me ${uniqueName("w")}`;
  await page.getByLabel("Your review").fill(words);
  await page.getByRole("button", { name: "Post review" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Review saved" })).toBeVisible();
  await expect(page.getByTestId("review-list").getByText(words)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your review" })).toBeVisible();
  const after = await rating(page);
  expect(after.count).toBe(before.count + 1);
  expect(after.average).toBeLessThan(before.average);

  // Staff hide it with a reason: it leaves the page and its average.
  const admin = await (await browser.newContext()).newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/reviews", { waitUntil: "networkidle" });
  const item = admin.getByRole("listitem").filter({ hasText: words });
  await item.getByLabel("Reason").fill("Support request, not a review");
  await item.getByRole("button", { name: "Hide" }).click();
  await expect(admin.getByRole("status").filter({ hasText: "Review hidden" })).toBeVisible();
  await expect(item.getByText("Support request, not a review")).toBeVisible();

  await page.goto("/product/vertex-rust", { waitUntil: "networkidle" });
  await expect(page.getByTestId("review-list").getByText(words)).toHaveCount(0);
  expect(await rating(page)).toEqual(before);
  const notice = page.getByTestId("review-hidden");
  await expect(notice.getByText("Your review is hidden by our staff")).toBeVisible();
  await expect(notice.getByText("Reason: Support request, not a review")).toBeVisible();
});
