// Discord roles that follow the licence, on the simulated Discord: a member buys a plan, links
// Discord from the Security page (password first), and the simulated server shows the role on
// /dev/discord; a refund takes it away. A member of its own, so no licence from another run or test
// keeps the role justified.
import { expect, test } from "@playwright/test";
import { buyWeeklyByWebhook, refundByWebhook, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

test("a member's role follows the licence: linked, granted on purchase, taken by a refund", async ({ page, browser, baseURL }) => {
  // Stock a weekly code for the order (earlier runs may have sold the demo stock).
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`DISCORD-E2E-${uniqueName("k").toUpperCase()}`]);
  const member = await signUpAndLogIn(page, "discord");
  const order = await buyWeeklyByWebhook(baseURL!, member.email);

  await page.goto("/dashboard/security", { waitUntil: "networkidle" });
  const card = page.getByRole("region", { name: "Discord" });
  await card.getByLabel("Your password").fill(member.password);
  await card.getByRole("button", { name: "Link Discord" }).click();
  await expect(page.getByText("Discord linked")).toBeVisible();

  // The member joined the simulated server with the role, in one step.
  const roles = page.getByLabel(`Roles of shop member ${member.username}`, { exact: true });
  await reloadUntilVisible(page, "/dev/discord", roles.getByText("Subscriber", { exact: true }));
  await reloadUntilVisible(page, "/dashboard/security", page.getByText("Your roles are up to date."));

  // A refund takes the role away.
  await refundByWebhook(baseURL!, order);
  await reloadUntilVisible(page, "/dev/discord", roles.getByText("No roles"));
});
