// The Discord page's cards: the health card (what Discord says about the bot, and what to change),
// the server the roles are handed out in, and which role each plan grants.
import { useFetcher } from "react-router";
import { AlertTriangle, CheckCircle } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, SelectField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import type { Answer } from "~/lib/answer";
import { discordSettingsSchema, GRANT_LABELS, MAX_MANAGED_ROLES, ROLE_GRANTS } from "~/lib/discord-roles";

interface GuildRole {
  id: string;
  name: string;
  position: number;
  assignable: boolean;
}

const MODE_TEXT = {
  live: "Connected to Discord with the bot token (DISCORD_BOT_TOKEN).",
  simulated: "No bot token is set: this is the simulated Discord of development (see /dev/discord).",
  off: "Role sync is off: set DISCORD_BOT_TOKEN with wrangler secret put, then choose the server below.",
} as const;

const COUNT_LABELS = [
  ["synced", "in step"],
  ["pending", "waiting for a sync"],
  ["retrying", "retrying"],
  ["not-in-guild", "not in the server"],
  ["failed", "failed (see Failed jobs)"],
] as const;

export function HealthCard({
  mode,
  guildId,
  health,
  counts,
  savedProblems,
}: {
  mode: keyof typeof MODE_TEXT;
  guildId: string | null;
  health: { checkedAt: number; problems: string[]; botName: string | null } | null;
  counts: Record<(typeof COUNT_LABELS)[number][0], number>;
  savedProblems: string[];
}) {
  // Discord could not be asked just now (a rate limit): the cron's last findings stand.
  const problems = health?.problems ?? savedProblems;
  return (
    <Card className="space-y-4" aria-labelledby="discord-health">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="discord-health" className="font-bold">
          Health
        </h2>
        {!guildId || mode === "off" ? (
          <Badge tone="gray">Not set up</Badge>
        ) : problems.length === 0 ? (
          <Badge tone="green">Working</Badge>
        ) : (
          <Badge tone="red">Needs attention</Badge>
        )}
      </div>
      <p className="text-sm text-muted">{MODE_TEXT[mode]}</p>
      {!guildId ? (
        <p className="text-sm">Choose the server below: the health check starts once the shop knows where to look.</p>
      ) : problems.length === 0 ? (
        <p className="flex items-start gap-2 text-sm">
          <CheckCircle className="mt-0.5 size-4 shrink-0 text-green-400" aria-hidden />
          {health?.botName
            ? `The bot "${health.botName}" is in the server, may manage roles and sits above every role it hands out.`
            : "No problems found."}
        </p>
      ) : (
        <ul className="space-y-2" aria-label="What to change">
          {problems.map((problem) => (
            <li key={problem} className="flex items-start gap-2 text-sm text-red-300">
              <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
              {problem}
            </li>
          ))}
        </ul>
      )}
      {health ? (
        <p className="text-xs text-muted">
          Asked Discord <LocalTime ms={health.checkedAt} format="datetime" />; the cron asks again every five minutes.
        </p>
      ) : null}
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        {COUNT_LABELS.map(([state, label]) => (
          <div key={state} className="rounded-lg border border-line p-3">
            <dt className="text-xs text-muted">Members {label}</dt>
            <dd className="text-xl font-bold tabular-nums">{counts[state]}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

export function GuildCard({ guildId }: { guildId: string | null }) {
  const fetcher = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, discordSettingsSchema, {
    title: "Check the form",
    answer: fetcher.data?.intent === "discord-guild" ? fetcher.data : null,
  });
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Server</h2>
      <p className="text-sm text-muted">
        The community server the roles live in. In Discord, turn on Developer Mode (User Settings → Advanced), then right-click the server
        and Copy Server ID. Invite the bot with the Manage Roles permission.
      </p>
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <input type="hidden" name="intent" value="discord-guild" />
        <Field
          label="Server id"
          name="guildId"
          defaultValue={guildId ?? ""}
          key={guildId}
          inputMode="numeric"
          autoComplete="off"
          required
          error={errors.guildId}
          className="flex-1"
        />
        <Button type="submit" disabled={busy} className="sm:mb-0">
          {busy ? "Saving..." : "Save server"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

export function RulesCard({
  rules,
  roles,
}: {
  rules: { id: number; grant: string; roleId: string; roleName: string | null }[];
  roles: GuildRole[];
}) {
  const fetcher = useFetcher<Answer>();
  const remove = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, discordSettingsSchema, {
    title: "Check the form",
    answer: fetcher.data?.intent === "discord-rule-add" ? fetcher.data : null,
  });
  useFetcherForm(remove, discordSettingsSchema, { title: "Nothing changed" });
  const roleName = (rule: (typeof rules)[number]) =>
    roles.find((role) => role.id === rule.roleId)?.name ?? rule.roleName ?? `Role ${rule.roleId}`;
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Roles</h2>
      <p className="text-sm text-muted">
        Which role an active licence grants (paid and not expired, refunded, cancelled, revoked or banned). A member keeps a role while any
        licence of theirs grants it. The sync touches only these roles, at most {MAX_MANAGED_ROLES}.
      </p>
      {rules.length === 0 ? (
        <p className="text-sm">No rules yet: nobody gets a role until you add one.</p>
      ) : (
        <ul className="divide-y divide-line rounded-lg border border-line">
          {rules.map((rule) => (
            <li key={rule.id} className="flex flex-wrap items-center justify-between gap-2 p-3 text-sm">
              <span>
                <span className="font-semibold">{GRANT_LABELS[rule.grant as keyof typeof GRANT_LABELS] ?? rule.grant}</span> gives{" "}
                <Badge tone="blue">{roleName(rule)}</Badge>
              </span>
              <remove.Form method="post">
                <input type="hidden" name="intent" value="discord-rule-remove" />
                <input type="hidden" name="ruleId" value={rule.id} />
                <Button
                  type="submit"
                  variant="ghost"
                  disabled={remove.state !== "idle"}
                  aria-label={`Remove the rule: ${GRANT_LABELS[rule.grant as keyof typeof GRANT_LABELS] ?? rule.grant} gives ${roleName(rule)}`}
                >
                  Remove
                </Button>
              </remove.Form>
            </li>
          ))}
        </ul>
      )}
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="grid gap-3 sm:grid-cols-2 sm:items-end">
        <input type="hidden" name="intent" value="discord-rule-add" />
        <SelectField
          label="Granted by"
          name="grant"
          required
          placeholder="Choose..."
          options={ROLE_GRANTS.map((grant) => ({ value: grant, label: GRANT_LABELS[grant] }))}
          error={errors.grant}
        />
        {roles.length > 0 ? (
          <SelectField
            label="Role"
            name="roleId"
            required
            placeholder="Choose a role..."
            options={roles.map((role) => ({ value: role.id, label: role.assignable ? role.name : `${role.name} (above the bot)` }))}
            error={errors.roleId}
          />
        ) : (
          <Field
            label="Role id"
            name="roleId"
            inputMode="numeric"
            autoComplete="off"
            required
            error={errors.roleId}
            hint="Discord could not list the roles: paste the role's id"
          />
        )}
        {/* The card is half the page wide from lg up: the button goes below the two choices. */}
        <Button type="submit" disabled={busy} className="sm:col-span-2 sm:justify-self-end">
          {busy ? "Adding..." : "Add rule"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}
