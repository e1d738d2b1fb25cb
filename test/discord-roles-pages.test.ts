// The Discord pages through the Worker: the back office's settings and health card (admins only,
// every input checked on the server), the member's link to the simulated Discord (password first,
// then into the server with their roles in one step) and what the member's page says of it.
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { setBotRoleLow, simulatedGuild } from "~/server/hub/discord/dev-discord.server";
import { simulatedDiscordIdOf } from "~/server/hub/discord/role-link.server";
import { SIMULATED_GUILD_ID, SIMULATED_ROLES } from "~/server/hub/discord/simulated-discord.server";
import { auditLog, discordRoleRules, oauthAccounts } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, signIn, unique } from "./helpers";

const PAGE = "/dashboard/discord";
const staff = async (role: "admin" | "support") => signIn(await createAccount({ role }), unique("ip"));
const text = async (response: Response) => (await response.text()).replace(/<!-- -->/g, "");

let admin: string;
beforeEach(async () => {
  admin = await staff("admin");
  await db.delete(discordRoleRules);
  await setBotRoleLow(db, false);
  expect((await call(PAGE, { form: { intent: "discord-guild", guildId: SIMULATED_GUILD_ID }, cookie: admin })).status).toBe(200);
  // The first request builds the page on demand, which can take a while on a busy machine.
}, 30_000);

describe("the back office's Discord page", () => {
  it("is for admins: members and support get 403 on the page and its actions", async () => {
    for (const cookie of [await signIn(await createAccount(), unique("ip")), await staff("support")]) {
      expect((await call(PAGE, { cookie })).status).toBe(403);
      expect((await call(PAGE, { form: { intent: "discord-guild", guildId: "1" }, cookie })).status).toBe(403);
    }
    expect((await call(PAGE)).status).toBe(302);
  });

  it("checks every input on the server", async () => {
    const badGuild = await call(PAGE, { form: { intent: "discord-guild", guildId: "my server" }, cookie: admin });
    expect(badGuild.status).toBe(400);
    expect(await badGuild.text()).toContain("Discord id");
    const badGrant = await call(PAGE, { form: { intent: "discord-rule-add", grant: "forever", roleId: SIMULATED_ROLES.vip }, cookie: admin });
    expect(badGrant.status).toBe(400);
    // A role the server does not have is refused: Discord itself is asked.
    const unknownRole = await call(PAGE, { form: { intent: "discord-rule-add", grant: "any", roleId: "1100000000000000777" }, cookie: admin });
    expect(unknownRole.status).toBe(400);
    expect(await unknownRole.text()).toContain("no role with this id");
    expect(await db.select().from(discordRoleRules)).toEqual([]);
  });

  it("adds and removes rules, audited, with the role's name from Discord", async () => {
    const added = await call(PAGE, { form: { intent: "discord-rule-add", grant: "monthly", roleId: SIMULATED_ROLES.vip }, cookie: admin });
    expect(added.status).toBe(200);
    const [rule] = await db.select().from(discordRoleRules);
    expect(rule).toMatchObject({ grant: "monthly", roleId: SIMULATED_ROLES.vip, roleName: "VIP" });
    expect((await call(PAGE, { form: { intent: "discord-rule-add", grant: "monthly", roleId: SIMULATED_ROLES.vip }, cookie: admin })).status).toBe(409);
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "discord.rule.add"))).not.toHaveLength(0);
    expect((await call(PAGE, { form: { intent: "discord-rule-remove", ruleId: String(rule!.id) }, cookie: admin })).status).toBe(200);
    expect((await call(PAGE, { form: { intent: "discord-rule-remove", ruleId: String(rule!.id) }, cookie: admin })).status).toBe(404);
  });

  it("says on the health card what to change when the bot's role is too low", async () => {
    await call(PAGE, { form: { intent: "discord-rule-add", grant: "any", roleId: SIMULATED_ROLES.subscriber }, cookie: admin });
    expect(await text(await call(PAGE, { cookie: admin }))).toContain("Working");
    await setBotRoleLow(db, true);
    const page = await text(await call(PAGE, { cookie: admin }));
    expect(page).toContain("Needs attention");
    expect(page).toContain("Drag the bot&#x27;s role &quot;Vertex Bot&quot; above &quot;Subscriber&quot;");
  });
});

describe("a member links Discord", () => {
  it("asks for the password, then joins the server with the roles the licence gives, in one step", async () => {
    await call(PAGE, { form: { intent: "discord-rule-add", grant: "any", roleId: SIMULATED_ROLES.subscriber }, cookie: admin });
    const member = await createAccount();
    await boughtKey("1 Week", member.email);
    const cookie = await signIn(member, unique("ip"));
    const wrong = await call("/dashboard/security", { form: { intent: "link-simulated-discord", password: "not-it" }, cookie });
    expect(wrong.status).toBe(401);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, member.id))).toEqual([]);

    const linked = await call("/dashboard/security", { form: { intent: "link-simulated-discord", password: member.password }, cookie });
    expect(linked.status).toBe(200);
    const discordId = await simulatedDiscordIdOf(member.id);
    // Added by the link itself (PUT with the access token and the roles), before any sync ran.
    const inGuild = (await simulatedGuild(db)).members.find((m) => m.userId === discordId);
    expect(inGuild?.roles).toEqual([SIMULATED_ROLES.subscriber]);
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "discord.member.add"))).toEqual(expect.arrayContaining([expect.objectContaining({ subject: member.id })]));
    await vi.waitFor(async () => expect(await text(await call("/dashboard/security", { cookie }))).toContain("Your roles are up to date."), { timeout: 15_000 });
    const page = await text(await call("/dashboard/security", { cookie }));
    expect(page).toContain("Subscriber");
    // The staff's view of the same customer.
    const customer = await text(await call(`/dashboard/customers/${member.id}`, { cookie: admin }));
    expect(customer).toContain("In step");
  });
});
