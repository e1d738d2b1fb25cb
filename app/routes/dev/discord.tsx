// /dev/discord: the simulated Discord's control panel (development and tests only). Shows the
// guild's members and their roles, and makes the mishaps the role sync must survive: a role removed
// by hand, a member who leaves, the bot's role dragged below the roles it hands out, a burst of
// 429s. "Run the sweep now" does what the cron does every five minutes (crons do not fire in dev).
import { Form, useNavigation } from "react-router";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { answerInvalid } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { notFound } from "~/http/refusals.server";
import { readSubmission } from "~/http/submission.server";
import {
  devDiscordSchema,
  joinGuild,
  leaveGuild,
  rateLimitNext,
  removeRoleByHand,
  setBotRoleLow,
  SIMULATED_DISCORD_ENABLED,
  simulatedGuild,
} from "~/server/discord/dev-discord.server";
import { checkGuildHealth, queueReconcile } from "~/server/discord/reconcile.server";
import { discordSetup } from "~/server/discord/role-setup.server";
import type { Route } from "./+types/discord";

export const meta: Route.MetaFunction = () => [{ title: "Simulated Discord" }, { name: "robots", content: "noindex" }];

export async function loader({ context }: Route.LoaderArgs) {
  if (!SIMULATED_DISCORD_ENABLED) throw notFound();
  return simulatedGuild(app(context).db);
}

export async function action({ request, context }: Route.ActionArgs) {
  if (!SIMULATED_DISCORD_ENABLED) throw notFound();
  const { db, env } = app(context);
  const submission = await readSubmission(request, devDiscordSchema);
  if (!submission.ok) return answerInvalid(submission);
  const form = submission.value;
  switch (form.intent) {
    case "remove-role":
      return removeRoleByHand(db, form.userId, form.roleId);
    case "leave":
      return leaveGuild(db, form.userId);
    case "join":
      return joinGuild(db, form.userId, form.username);
    case "bot-low":
    case "bot-high":
      return setBotRoleLow(db, form.intent === "bot-low");
    case "rate-limit":
    case "global-limit":
      return rateLimitNext(db, 3, 5, form.intent === "global-limit");
    case "reconcile":
      await queueReconcile({ db, queue: env.JOB_QUEUE }, Date.now(), { everyone: true });
      await checkGuildHealth({ db, setup: discordSetup(env, db) });
      return null;
  }
}

function Intent({
  intent,
  label,
  fields = {},
  variant = "outline",
}: {
  intent: string;
  label: string;
  fields?: Record<string, string>;
  variant?: "outline" | "ghost" | "primary";
}) {
  const busy = useNavigation().state !== "idle";
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" variant={variant} size="sm" disabled={busy}>
        {label}
      </Button>
    </Form>
  );
}

export default function DevDiscord({ loaderData }: Route.ComponentProps) {
  const { roles, members, outside, botRoleLow, rateLimitedRequests, requests } = loaderData;
  const roleName = (id: string) => roles.find((role) => role.id === id)?.name ?? id;
  return (
    <div className="mx-auto max-w-4xl space-y-6 px-4 py-10">
      <h1 className="text-3xl font-black tracking-tight">Simulated Discord</h1>
      <p className="text-sm text-muted">
        Development only. The shop talks to this guild as it would to Discord (same answers and error codes). Make something go wrong, then
        run the sweep and watch the shop repair it; the health card on the back office's Discord page says what it found.
      </p>
      <Card className="space-y-3">
        <h2 className="font-bold">The shop's side</h2>
        <div className="flex flex-wrap gap-2">
          <Intent intent="reconcile" label="Run the sweep now" variant="primary" />
          {botRoleLow ? (
            <Intent intent="bot-high" label="Put the bot's role back on top" />
          ) : (
            <Intent intent="bot-low" label="Drag the bot's role too low" />
          )}
          <Intent intent="rate-limit" label="Answer the next 3 requests with 429" />
          <Intent intent="global-limit" label="Hit the global rate limit (3 requests)" />
        </div>
        <p className="text-xs text-muted">
          {requests} request(s) answered so far; {rateLimitedRequests} more will be rate limited. Bot role:{" "}
          {botRoleLow ? "below the roles it hands out (50013)" : "above the roles it hands out"}.
        </p>
      </Card>
      <Card className="space-y-3">
        <h2 className="font-bold">Roles</h2>
        <ol className="flex flex-wrap gap-2" aria-label="Roles, highest first">
          {roles.map((role) => (
            <li key={role.id}>
              <Badge tone={role.name === "Vertex Bot" ? "orange" : "blue"}>{`${role.name} · position ${role.position}`}</Badge>
            </li>
          ))}
        </ol>
      </Card>
      <Card className="space-y-3">
        <h2 className="font-bold">Members ({members.length})</h2>
        <ul className="divide-y divide-line">
          {members.map((member) => (
            <li key={member.userId} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div className="min-w-0 space-y-1">
                <p className="font-semibold break-all">
                  {member.username}{" "}
                  {member.shopUser ? <span className="text-sm font-normal text-muted">(shop member {member.shopUser})</span> : null}
                </p>
                <p
                  className="flex flex-wrap gap-1 text-sm"
                  aria-label={`Roles of ${member.shopUser ? `shop member ${member.shopUser}` : member.username}`}
                >
                  {member.roles.length === 0 ? (
                    <span className="text-muted">No roles</span>
                  ) : (
                    member.roles.map((id) => (
                      <Badge key={id} tone="blue">
                        {roleName(id)}
                      </Badge>
                    ))
                  )}
                </p>
              </div>
              {member.bot ? (
                <Badge>Bot</Badge>
              ) : (
                <div className="flex flex-wrap gap-2">
                  {member.roles.map((id) => (
                    <Intent
                      key={id}
                      intent="remove-role"
                      label={`Remove ${roleName(id)}`}
                      fields={{ userId: member.userId, roleId: id }}
                      variant="ghost"
                    />
                  ))}
                  <Intent intent="leave" label="Leave the server" fields={{ userId: member.userId }} variant="ghost" />
                </div>
              )}
            </li>
          ))}
        </ul>
      </Card>
      {outside.length > 0 ? (
        <Card className="space-y-3">
          <h2 className="font-bold">Linked but not in the server</h2>
          <ul className="divide-y divide-line">
            {outside.map((member) => (
              <li key={member.userId} className="flex flex-wrap items-center justify-between gap-3 py-3">
                <span className="break-all">{`${member.username ?? member.userId}${member.shopUser ? ` (shop member ${member.shopUser})` : ""}`}</span>
                <Intent intent="join" label="Join by invite" fields={{ userId: member.userId, username: member.username ?? "member" }} />
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </div>
  );
}
