// /dashboard/discord: admins only (capability discord.manage). The guild roles are handed out in,
// which role each plan grants, and a health card that asks Discord itself whether the bot can do
// its job (decision 064). Every change is audited.
import { MessageCircle } from "~/components/icons";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { discordSettingsSchema } from "~/lib/discord-roles";
import { checkGuildHealth } from "~/server/discord/reconcile.server";
import { addRoleRule, discordSetup, removeRoleRule, roleSettings, saveGuild, syncCounts } from "~/server/discord/role-setup.server";
import { GuildCard, HealthCard, RulesCard } from "./+shared/discord-cards";
import type { Route } from "./+types/discord";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("discord.manage")];

export const meta: Route.MetaFunction = () => [{ title: `Discord | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const setup = discordSetup(env, db);
  // Asked live: the card says what Discord says now, not what the last cron run found.
  const health = await checkGuildHealth({ db, setup }).catch((error: unknown) => {
    console.error("Discord health check failed:", error);
    return null;
  });
  const [settings, counts] = await Promise.all([roleSettings(db), syncCounts(db)]);
  return { mode: setup.api ? (setup.simulated ? ("simulated" as const) : ("live" as const)) : ("off" as const), settings, health, counts };
}

const titles: ProblemTitles = { invalid: "Check the form", conflict: "Nothing changed", "not-found": "Nothing changed" };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "discord", discordSettingsSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: form, viewer } = submission;
  const { db, env } = app(context);
  switch (form.intent) {
    case "discord-guild":
      return answer(await saveGuild(db, viewer.id, form.guildId), {
        success: { title: "Server saved", description: "The health check now looks at this server." },
        titles,
        intent: form.intent,
      });
    case "discord-rule-add":
      return answer(await addRoleRule({ db, setup: discordSetup(env, db) }, viewer.id, form), {
        success: { title: "Rule added", description: "Members get the role at the next sweep, within five minutes." },
        titles,
        intent: form.intent,
      });
    case "discord-rule-remove":
      return answer(await removeRoleRule(db, viewer.id, form.ruleId), {
        success: { title: "Rule removed", description: "The sync no longer hands out or takes back that role." },
        titles,
        intent: form.intent,
      });
  }
}

export default function Discord({ loaderData }: Route.ComponentProps) {
  const { mode, settings, health, counts } = loaderData;
  return (
    <div className="space-y-8">
      <div className="space-y-1">
        <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
          DISCORD <MessageCircle className="size-6 text-accent" aria-hidden />
        </h1>
        <p className="text-sm text-muted">
          Roles in the community server follow the licence: given when one starts, taken back when the last one that justified them ends.
        </p>
      </div>
      <HealthCard mode={mode} guildId={settings.guildId} health={health} counts={counts} savedProblems={settings.healthProblems} />
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
        <GuildCard guildId={settings.guildId} />
        <RulesCard rules={settings.rules} roles={health?.roles ?? []} />
      </div>
    </div>
  );
}
