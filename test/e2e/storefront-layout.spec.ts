import { expect, type Locator, type Page, test } from "@playwright/test";
import { logIn, openCartWithMainProduct } from "./helpers";
import { INTRO_MS } from "../../app/lib/intro";

const WIDTHS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

async function box(locator: Locator) {
  const rect = await locator.boundingBox();
  if (!rect) throw new Error("element has no box");
  return rect;
}

function overlap(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function hasNoSideScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

test("the hero keeps its poster when the video cannot load", async ({ page }) => {
  // The video service is unreachable: its player never reports that it plays.
  await page.route("https://www.youtube-nocookie.com/**", (route) => route.abort());
  // The page's timers run on a paused clock that the test moves forward.
  const start = new Date("2026-01-01T12:00:00Z");
  await page.clock.install({ time: start });
  await page.clock.pauseAt(new Date(start.getTime() + 1000));
  await page.goto("/", { waitUntil: "networkidle" });
  const poster = page.getByTestId("hero-poster");
  await expect(poster).toBeVisible();
  expect(await poster.evaluate((el) => getComputedStyle(el).backgroundImage)).toMatch(/^url\(/);
  // Nothing plays unseen behind the intro splash: no player until the intro is over.
  const player = page.locator('iframe[title="Background video"]');
  await page.clock.runFor(INTRO_MS - 100);
  await expect(page.locator(".intro-splash")).toHaveCount(1);
  expect(await player.count()).toBe(0);
  // Then the player is added once the page is idle, and stays invisible: no broken frame shows.
  await page.clock.runFor(200);
  await expect(page.locator(".intro-splash")).toHaveCount(0);
  await page.clock.runFor(5000);
  await expect(player).toHaveCount(1);
  await expect(player).toHaveCSS("opacity", "0");
});

test("the intro splash animates only what the compositor moves, so it costs no layout or paint while the page hydrates", async ({
  page,
}) => {
  await page.goto("/");
  const animated = await page.evaluate(() =>
    document.getAnimations().flatMap((animation) => {
      const effect = animation.effect as KeyframeEffect | null;
      const target = effect?.target as Element | null;
      if (!effect || !target?.closest(".intro-splash")) return [];
      const timing = effect.getComputedTiming();
      const properties = effect
        .getKeyframes()
        .flatMap((frame) => Object.keys(frame).filter((key) => !["offset", "computedOffset", "easing", "composite"].includes(key)));
      return [{ name: (animation as CSSAnimation).animationName, duration: Number(timing.duration), properties }];
    }),
  );
  // The bar, the logo and its glow, the tagline and the fade-out all animate.
  expect(animated.length).toBeGreaterThanOrEqual(5);
  for (const { name, duration, properties } of animated) {
    // Visibility flips once, at the end, in an animation of no length.
    const allowed = duration === 0 ? ["visibility"] : ["transform", "opacity"];
    expect(
      properties.filter((property) => !allowed.includes(property)),
      name,
    ).toEqual([]);
  }
});

test("the hero's video fades in once its player reports that it plays", async ({ page }) => {
  // A stand-in for the embedded player: answers "listening" with the "playing" state.
  await page.route("https://www.youtube-nocookie.com/**", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<script>addEventListener("message", (e) => { if (String(e.data).includes("listening")) parent.postMessage(JSON.stringify({ event: "onStateChange", info: 1 }), "*"); });</script>`,
    }),
  );
  await page.goto("/", { waitUntil: "networkidle" });
  const player = page.locator('iframe[title="Background video"]');
  await expect(player).toHaveAttribute("data-playing", "true");
  await expect(player).toHaveCSS("opacity", "0.3");
  await expect(page.getByTestId("hero-poster")).toBeVisible();
});

for (const size of WIDTHS) {
  test(`${size.name}: a toast over the page is wide enough to read and covers neither the brand nor the bar's buttons`, async ({
    page,
  }) => {
    await page.setViewportSize(size);
    await page.goto("/auth?mode=signup");
    await page.getByLabel("Username").fill("ab");
    await page.getByRole("button", { name: "Create Account" }).click();
    const toast = page
      .getByRole("list", { name: "Notifications" })
      .getByRole("alert")
      .filter({ hasText: "Username must be at least 3 characters" });
    await expect(toast).toBeVisible();
    const bar = page.getByRole("navigation", { name: "Main" });
    const toastBox = await box(toast);
    // A lane narrower than this stacks the toast's words one under another.
    expect(toastBox.width).toBeGreaterThanOrEqual(Math.min(280, size.width - 24));
    for (const part of [
      bar.getByRole("link", { name: /^VERTEX/ }),
      bar.getByRole("link", { name: "Login" }),
      bar.getByRole("link", { name: "Sign Up" }),
      bar.getByRole("button", { name: /^Open cart/ }),
    ]) {
      await expect(part).toBeVisible();
      expect(overlap(toastBox, await box(part))).toBe(false);
    }
  });

  test(`${size.name}: toasts never cover the cart's actions, and the add-on is offered only until it is in the cart`, async ({ page }) => {
    await page.setViewportSize(size);
    const drawer = await openCartWithMainProduct(page);
    const recommended = drawer.getByRole("complementary", { name: "Recommended" });
    await expect(recommended).toContainText("Vertex HWID Spoofer");
    await recommended.getByRole("button", { name: "Add" }).click();

    // The toast shows inside the drawer, clear of the total and the checkout button.
    const toast = drawer.getByRole("status").filter({ hasText: "Vertex HWID Spoofer added to your cart" });
    await expect(toast).toBeVisible();
    const checkout = drawer.getByRole("button", { name: "Checkout Securely" });
    await expect(checkout).toBeInViewport();
    expect(overlap(await box(toast), await box(checkout))).toBe(false);
    expect(overlap(await box(toast), await box(drawer.getByText("Total", { exact: true })))).toBe(false);
    await checkout.click({ trial: true });

    // The spoofer is in the cart now: no more offering it, here or on the product page.
    await expect(drawer.getByText("2 items in your cart")).toBeVisible();
    await expect(recommended).toHaveCount(0);
    await drawer.getByRole("button", { name: "Close cart" }).click();
    await expect(page.getByText("RECOMMENDED")).toHaveCount(0);
    // Removing it brings the offer back.
    await page.getByRole("button", { name: /Open cart, 2 items/ }).click();
    await drawer.getByRole("button", { name: /Remove Vertex HWID Spoofer/ }).click();
    await expect(recommended).toBeVisible();
  });

  test(`${size.name}: the storefront fits the screen, and the avatar sits next to the cart`, async ({ page }) => {
    await page.setViewportSize(size);
    for (const path of ["/", "/products", "/product/vertex-rust", "/status", "/support", "/affiliate", "/auth"]) {
      await page.goto(path, { waitUntil: "networkidle" });
      await hasNoSideScroll(page);
    }
    // The footer's Products goes to the product list; the top bar's to the main product.
    await page.goto("/", { waitUntil: "networkidle" });
    await expect(page.getByRole("navigation", { name: "Footer" }).getByRole("link", { name: "Products" })).toHaveAttribute(
      "href",
      "/products",
    );
    if (size.width >= 768) {
      await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Products" })).toHaveAttribute(
        "href",
        "/product/vertex-rust",
      );
    }

    await logIn(page, "member", "member-demo-1");
    const cart = await box(page.getByRole("button", { name: /Open cart/ }));
    const avatar = await box(page.getByRole("button", { name: "Account menu" }));
    expect(avatar.x - (cart.x + cart.width)).toBeLessThanOrEqual(12);
  });
}
