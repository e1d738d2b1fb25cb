// The Discord pages through the Worker: the back office's settings and health card (admins only,
// every input checked on the server), the member's link to the simulated Discord (password first,
// then into the server with their roles in one step) and what the member's page says of it.
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { setBotRoleLow, simulatedGuild } from "~/server/discord/dev-discord.server";
import { checkGuildHealth } from "~/server/discord/reconcile.server";
import { simulatedDiscordIdOf } from "~/server/discord/role-link.server";
import { discordSetup } from "~/server/discord/role-setup.server";
import { SIMULATED_GUILD_ID, SIMULATED_ROLES } from "~/server/discord/simulated-discord.server";
import { auditLog, discordRoleRules, oauthAccounts, simulatedDiscordRoles } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, signIn, unique } from "../helpers";

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
    const badGrant = await call(PAGE, {
      form: { intent: "discord-rule-add", grant: "forever", roleId: SIMULATED_ROLES.vip },
      cookie: admin,
    });
    expect(badGrant.status).toBe(400);
    // A role the server does not have is refused: Discord itself is asked.
    const unknownRole = await call(PAGE, {
      form: { intent: "discord-rule-add", grant: "any", roleId: "1100000000000000777" },
      cookie: admin,
    });
    expect(unknownRole.status).toBe(400);
    expect(await unknownRole.text()).toContain("no role with this id");
    expect(await db.select().from(discordRoleRules)).toEqual([]);
  });

  it("adds and removes rules, audited, with the role's name from Discord", async () => {
    const added = await call(PAGE, { form: { intent: "discord-rule-add", grant: "monthly", roleId: SIMULATED_ROLES.vip }, cookie: admin });
    expect(added.status).toBe(200);
    const [rule] = await db.select().from(discordRoleRules);
    expect(rule).toMatchObject({ grant: "monthly", roleId: SIMULATED_ROLES.vip, roleName: "VIP" });
    expect(
      (await call(PAGE, { form: { intent: "discord-rule-add", grant: "monthly", roleId: SIMULATED_ROLES.vip }, cookie: admin })).status,
    ).toBe(409);
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "discord.rule.add"))).not.toHaveLength(0);
    expect((await call(PAGE, { form: { intent: "discord-rule-remove", ruleId: String(rule!.id) }, cookie: admin })).status).toBe(200);
    expect((await call(PAGE, { form: { intent: "discord-rule-remove", ruleId: String(rule!.id) }, cookie: admin })).status).toBe(404);
  });

  it("says on the health card what to change for each way the bot cannot do its job", async () => {
    await call(PAGE, { form: { intent: "discord-rule-add", grant: "any", roleId: SIMULATED_ROLES.subscriber }, cookie: admin });
    // Manage Roles taken from the bot's role.
    await db.update(simulatedDiscordRoles).set({ permissions: "0" }).where(eq(simulatedDiscordRoles.name, "Vertex Bot"));
    try {
      expect(await text(await call(PAGE, { cookie: admin }))).toContain(
        "The bot&#x27;s roles lack Manage Roles: give &quot;Vertex Bot&quot; that permission",
      );
    } finally {
      await db
        .update(simulatedDiscordRoles)
        .set({ permissions: String(1n << 28n) })
        .where(eq(simulatedDiscordRoles.name, "Vertex Bot"));
    }
    // A rule's role deleted in Discord.
    await db.insert(discordRoleRules).values({ grant: "monthly", roleId: "1100000000000000555", roleName: "Gone", createdAt: Date.now() });
    expect(await text(await call(PAGE, { cookie: admin }))).toContain("The role 1100000000000000555 no longer exists in the guild");
    await db.delete(discordRoleRules).where(eq(discordRoleRules.roleId, "1100000000000000555"));
    // A server the bot is not in.
    expect((await call(PAGE, { form: { intent: "discord-guild", guildId: "1100000000000000444" }, cookie: admin })).status).toBe(200);
    expect(await text(await call(PAGE, { cookie: admin }))).toContain(
      "is not in the guild 1100000000000000444 (10004): invite it to the server with the Manage Roles permission",
    );
  });

  it("says on the health card when Discord refuses the bot token", async () => {
    const fetchSpy = vi
      .spyOn(globalThis, "fetch")
      .mockResolvedValue(Response.json({ message: "401: Unauthorized", code: 0 }, { status: 401 }));
    try {
      const health = await checkGuildHealth({ db, setup: discordSetup({ DISCORD_BOT_TOKEN: "stale-token" }, db) });
      expect(health?.problems).toEqual([expect.stringContaining("Discord refused the bot token (401): set DISCORD_BOT_TOKEN")]);
    } finally {
      fetchSpy.mockRestore();
    }
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
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "discord.member.add"))).toEqual(
      expect.arrayContaining([expect.objectContaining({ subject: member.id })]),
    );
    await vi.waitFor(
      async () => expect(await text(await call("/dashboard/security", { cookie }))).toContain("Your roles are up to date."),
      { timeout: 15_000 },
    );
    const page = await text(await call("/dashboard/security", { cookie }));
    expect(page).toContain("Subscriber");
    // The staff's view of the same customer: the link, the roles it should have and has, the last sync.
    const customer = await text(await call(`/dashboard/customers/${member.id}`, { cookie: admin }));
    const discordCard = customer.slice(customer.indexOf('<h2 class="font-bold">Discord</h2>'));
    expect(discordCard).toContain(member.username);
    expect(discordCard).toContain(discordId);
    expect(discordCard).toContain("In step");
    expect(discordCard).toMatch(
      /Should have<\/dt><dd[^>]*><span[^>]*>Subscriber<\/span><\/dd><dt[^>]*>Has \(last seen\)<\/dt><dd[^>]*><span[^>]*>Subscriber<\/span>/,
    );
    expect(discordCard).not.toMatch(/Last sync<\/dt><dd[^>]*>never/);
  });
});
