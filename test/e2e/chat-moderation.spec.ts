import { expect, type Page, test } from "@playwright/test";
import { logIn, signUpAndLogIn } from "./helpers";

/** The general room's log on the dashboard's home. */
const generalLog = (page: Page) => page.getByRole("log", { name: "Chat messages" });

test("a mention is highlighted with an unread count; a moderator mutes its author and removes the message for both members", async ({
  browser,
}) => {
  const alicePage = await (await browser.newContext()).newPage();
  const bobPage = await (await browser.newContext()).newPage();
  const staffPage = await (await browser.newContext()).newPage();
  const alice = await signUpAndLogIn(alicePage, "alice");
  const bob = await signUpAndLogIn(bobPage, "bob");
  await logIn(staffPage, "admin", "admin-demo-1");

  // Both members join the general room; Bob then steps away to another page of the hub.
  await alicePage.goto("/dashboard");
  await bobPage.goto("/dashboard");
  await expect(alicePage.getByText("Connected")).toBeVisible();
  await expect(bobPage.getByText("Connected")).toBeVisible();
  await bobPage.getByRole("link", { name: "Subscriptions" }).click();
  await expect(bobPage).toHaveURL(/\/dashboard\/subscriptions$/);

  // Alice mentions Bob, picking his name from the suggestions.
  const box = alicePage.getByRole("combobox", { name: "Message" });
  await box.fill(`hey @${bob.username.slice(0, 6)}`);
  await alicePage.getByRole("option", { name: `@${bob.username}` }).click();
  await expect(box).toHaveValue(`hey @${bob.username} `);
  await box.pressSequentially("have a look at this");
  await alicePage.getByRole("button", { name: "Send message" }).click();
  const mention = `hey @${bob.username} have a look at this`;
  await expect(generalLog(alicePage).getByText(mention)).toBeVisible();

  // Bob's sidebar counts it, mention included, on his next page.
  const unread = bobPage.getByRole("link", { name: /^General\s*,\s*1 unread, 1 mentioning you$/ });
  await expect(async () => {
    await bobPage.getByRole("link", { name: "Downloads" }).click();
    await bobPage.getByRole("link", { name: "Subscriptions" }).click();
    await expect(unread).toBeVisible({ timeout: 1000 });
  }).toPass();
  await unread.click();
  await expect(bobPage).toHaveURL(/\/dashboard\/chat\/general$/);
  const highlighted = bobPage.getByRole("listitem", { name: `${alice.username} mentions you` });
  await expect(highlighted).toContainText("Mentions you");
  await expect(highlighted).toContainText("have a look at this");

  // The moderator mutes Alice from her message's menu.
  await staffPage.goto("/dashboard/chat/general");
  const staffLog = staffPage.getByRole("log", { name: "Chat messages" });
  const aliceMessage = staffLog.getByRole("listitem").filter({ hasText: "have a look at this" });
  await aliceMessage.getByRole("button", { name: "Moderate" }).click();
  const dialog = staffPage.getByRole("dialog", { name: `Moderate ${alice.username}'s message` });
  await dialog.getByRole("radio", { name: /Mute them/ }).check();
  await dialog.getByLabel("For how long").selectOption({ label: "10 minutes" });
  await dialog.getByLabel("Reason").fill("Testing the mute");
  await dialog.getByRole("button", { name: "Mute", exact: true }).click();
  await expect(staffPage.getByText("Member muted")).toBeVisible();
  await expect(dialog).toBeHidden();

  // Her next message is refused by the room, with the time left.
  await expect(alicePage.getByRole("status").filter({ hasText: "You are muted for 10 minutes more." })).toBeVisible();
  await box.fill("am I still here?");
  await alicePage.getByRole("button", { name: "Send message" }).click();
  await expect(alicePage.getByText("Failed to send message")).toBeVisible();
  await expect(alicePage.getByText("You are muted for 10 minutes more.").first()).toBeVisible();
  await expect(bobPage.getByRole("log", { name: "Chat messages" }).getByText("am I still here?")).toHaveCount(0);

  // The moderator removes the message: both members see "removed by staff" where it was.
  await aliceMessage.getByRole("button", { name: "Moderate" }).click();
  await dialog.getByRole("radio", { name: /Remove this message/ }).check();
  await dialog.getByLabel("Reason").fill("Off topic");
  await dialog.getByRole("button", { name: "Remove message" }).click();
  await expect(staffPage.getByText("Message removed")).toBeVisible();
  for (const page of [alicePage, bobPage]) {
    const log = page.getByRole("log", { name: "Chat messages" });
    await expect(log.getByText("have a look at this")).toHaveCount(0);
    await expect(log.getByRole("listitem").filter({ hasText: alice.username }).getByText("removed by staff")).toBeVisible();
  }
});
