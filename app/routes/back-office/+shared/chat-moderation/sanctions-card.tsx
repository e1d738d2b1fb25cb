// The mutes and bans from the chat in force now, each with why, by whom, until when, and a button
// that lifts it.
import { useFetcher } from "react-router";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useResultToast } from "~/components/use-result-toast";
import { type ChatSanction, timeLeft } from "~/lib/chat";

function Lift({ sanction }: { sanction: ChatSanction }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  const label = sanction.kind === "mute" ? "Lift mute" : "Lift ban";
  return (
    <fetcher.Form method="post" action="/dashboard/chat-moderation">
      <input type="hidden" name="intent" value={sanction.kind === "mute" ? "unmute" : "unban"} />
      <input type="hidden" name="member" value={sanction.userId} />
      <Button
        type="submit"
        size="sm"
        variant="outline"
        disabled={fetcher.state !== "idle"}
        aria-label={`${label} of ${sanction.username ?? "member"}`}
      >
        {label}
      </Button>
    </fetcher.Form>
  );
}

export function SanctionsCard({ sanctions, now }: { sanctions: ChatSanction[]; now: number }) {
  return (
    <Card as="section" aria-labelledby="chat-sanctions">
      <h2 id="chat-sanctions" className="text-xl font-bold">
        Mutes and bans
      </h2>
      <p className="mt-1 text-sm text-muted">
        A muted member reads the chat but cannot post; a banned member cannot open it. Neither touches their account or keys.
      </p>
      {sanctions.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No one is muted or banned.</p>
      ) : (
        <ResponsiveTable
          label="Mutes and bans in force"
          rows={sanctions}
          rowKey={(s) => String(s.id)}
          columns={[
            { label: "Member", value: (s) => s.username ?? "A former member" },
            {
              label: "What",
              value: (s) => (s.kind === "ban" ? <Badge tone="red">Banned</Badge> : <Badge tone="yellow">Muted</Badge>),
            },
            { label: "Until", value: (s) => (s.until === null ? "Lifted by staff" : `${timeLeft(s.until, now)} left`) },
            { label: "Why", value: (s) => s.reason, wrap: true },
            {
              label: "By",
              value: (s) => (
                <>
                  {s.by ?? "Staff"}, <LocalTime ms={s.createdAt} format="datetime" />
                </>
              ),
            },
            { label: "Action", value: (s) => <Lift sanction={s} /> },
          ]}
        />
      )}
    </Card>
  );
}
