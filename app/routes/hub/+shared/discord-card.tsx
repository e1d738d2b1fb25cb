// The Security page's Discord card: the linked account (and a way to unlink it) with the roles it
// should have in the community server and has, or a form to link one: through Discord (a plain
// form, so the browser follows the redirect) or, in development, the simulated Discord.
import { useFetcher } from "react-router";
import { useId } from "react";
import { LocalTime } from "~/components/local-time";
import { useResultToast } from "~/components/use-result-toast";
import { DiscordRoleList } from "~/components/discord-role-list";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import type { Answer } from "~/lib/answer";

interface RoleSync {
  state: "pending" | "synced" | "not-in-guild" | "retrying" | "failed";
  should: string[];
  has: string[] | null;
  lastSyncAt: number | null;
}

const STATE_TEXT: Record<RoleSync["state"], string> = {
  pending: "Your roles are being brought up to date.",
  synced: "Your roles are up to date.",
  "not-in-guild": "You are not in the community server: join it and your roles follow within minutes.",
  retrying: "Discord is slow to answer: your roles follow as soon as it does.",
  failed: "Your roles could not be updated; the shop's staff have been told.",
};

function Roles({ roles }: { roles: RoleSync }) {
  return (
    <div className="space-y-2 rounded-lg border border-line p-3 text-sm">
      <p>{STATE_TEXT[roles.state]}</p>
      <dl className="grid gap-2 sm:grid-cols-[auto_1fr]">
        <dt className="text-muted">Your licences give</dt>
        <dd className="flex flex-wrap gap-1">
          <DiscordRoleList roles={roles.should} />
        </dd>
        <dt className="text-muted">You have in the server</dt>
        <dd className="flex flex-wrap gap-1">
          {roles.has ? <DiscordRoleList roles={roles.has} /> : <span className="text-muted">not checked yet</span>}
        </dd>
      </dl>
      {roles.lastSyncAt ? (
        <p className="text-xs text-muted">
          Last updated <LocalTime ms={roles.lastSyncAt} format="datetime" />
        </p>
      ) : null}
    </div>
  );
}

export function DiscordCard({
  linked,
  askPassword,
  simulated,
  roles,
}: {
  linked: string | null;
  askPassword: boolean;
  simulated: boolean;
  roles: RoleSync | null;
}) {
  const unlink = useFetcher<Answer>();
  const link = useFetcher<Answer>();
  useResultToast(unlink);
  useResultToast(link);
  const password = askPassword ? (
    <Field label="Your password" name="password" type="password" autoComplete="current-password" required className="sm:flex-1" />
  ) : (
    <input type="hidden" name="password" value="" />
  );
  const headingId = useId();
  return (
    <Card as="section" aria-labelledby={headingId} className="space-y-3">
      <h2 id={headingId} className="font-bold">
        Discord
      </h2>
      {linked ? (
        <>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="flex flex-wrap items-center gap-2 text-sm text-muted">
              <Badge tone="green">Linked</Badge> <span className="font-semibold text-zinc-100">{linked}</span> can log in to your account,
              and gets the roles your licences give.
            </p>
            <unlink.Form method="post">
              <input type="hidden" name="intent" value="unlink-discord" />
              <Button type="submit" variant="outline" disabled={unlink.state !== "idle"}>
                {unlink.state !== "idle" ? "Unlinking..." : "Unlink Discord"}
              </Button>
            </unlink.Form>
          </div>
          {roles ? <Roles roles={roles} /> : null}
        </>
      ) : simulated ? (
        <>
          <p className="text-sm text-muted">
            Development: link the simulated Discord account to log in with it and get your roles in the simulated server (see /dev/discord).
          </p>
          <link.Form method="post" className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <input type="hidden" name="intent" value="link-simulated-discord" />
            {password}
            <Button type="submit" variant="outline" disabled={link.state !== "idle"}>
              {link.state !== "idle" ? "Linking..." : "Link Discord"}
            </Button>
          </link.Form>
        </>
      ) : (
        <>
          <p className="text-sm text-muted">
            Link your Discord account to log in with it and get the roles your licences give in the community server (you join it in the
            same step). Discord asks you to allow it; nothing is posted for you.
          </p>
          <form method="post" action="/auth/discord" className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <input type="hidden" name="intent" value="link" />
            {password}
            <Button type="submit" variant="outline">
              Link Discord
            </Button>
          </form>
        </>
      )}
    </Card>
  );
}
