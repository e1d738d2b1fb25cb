// A customer's Discord link as staff see it: the account, the roles their licences give and the
// roles Discord last said they have, the sync's state and its last error.
import { LocalTime } from "~/components/local-time";
import { DiscordRoleList } from "~/components/discord-role-list";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";

interface CustomerDiscord {
  username: string | null;
  discordId: string;
  state: "pending" | "synced" | "not-in-guild" | "retrying" | "failed";
  should: string[];
  has: string[] | null;
  lastSyncAt: number | null;
  lastError: string | null;
}

const STATE: Record<CustomerDiscord["state"], [string, BadgeTone]> = {
  pending: ["Waiting for a sync", "yellow"],
  synced: ["In step", "green"],
  "not-in-guild": ["Not in the server", "gray"],
  retrying: ["Retrying", "yellow"],
  failed: ["Failed", "red"],
};

export function DiscordRolesCard({ discord }: { discord: CustomerDiscord | null }) {
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Discord</h2>
      {discord ? (
        <>
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <span className="font-semibold break-all">{discord.username ?? discord.discordId}</span>
            <span className="font-mono text-xs text-muted">{discord.discordId}</span>
            <Badge tone={STATE[discord.state][1]}>{STATE[discord.state][0]}</Badge>
          </p>
          <dl className="grid gap-2 text-sm sm:grid-cols-[auto_1fr]">
            <dt className="text-muted">Should have</dt>
            <dd className="flex flex-wrap gap-1">
              <DiscordRoleList roles={discord.should} />
            </dd>
            <dt className="text-muted">Has (last seen)</dt>
            <dd className="flex flex-wrap gap-1">
              {discord.has ? <DiscordRoleList roles={discord.has} /> : <span className="text-muted">not checked yet</span>}
            </dd>
            <dt className="text-muted">Last sync</dt>
            <dd>{discord.lastSyncAt ? <LocalTime ms={discord.lastSyncAt} format="datetime" /> : "never"}</dd>
          </dl>
          {discord.lastError ? <p className="text-sm text-red-300">{discord.lastError}</p> : null}
        </>
      ) : (
        <p className="text-sm text-muted">No Discord account linked.</p>
      )}
    </Card>
  );
}
