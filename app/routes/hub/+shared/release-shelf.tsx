// The downloads page's releases: per product and channel the latest version with its notes and
// SHA-256, older versions below. A release the member may not have is shown locked, saying what
// they lack and the plans that include it, with a way to get one.
import { Link } from "~/components/link";
import { Download, Lock } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { formatFileSize } from "~/lib/format";
import { type ChannelShelf, lockedReason, type ReleaseView } from "~/lib/releases";

const NOTES =
  "text-sm text-zinc-300 [&_a]:text-accent [&_a]:underline [&_code]:font-mono [&_li]:mt-1 [&_p]:mt-2 [&_ul]:mt-2 [&_ul]:list-disc [&_ul]:pl-5 [&_h2]:mt-3 [&_h2]:font-bold [&_h3]:mt-3 [&_h3]:font-semibold";
const CHANNEL_TITLE = { stable: "Stable", beta: "Beta" } as const;

function Checksum({ sha256 }: { sha256: string | null }) {
  return (
    <p className="mt-2 text-xs text-muted">
      {sha256 ? (
        <>
          SHA-256 <code className="font-mono break-all text-zinc-200">{sha256}</code>
        </>
      ) : (
        "SHA-256 sent with the file: it is worked out at the first download"
      )}
    </p>
  );
}

function GetRelease({ release, label }: { release: ReleaseView; label: string }) {
  const { toast } = useToast();
  if (release.locked) {
    return (
      <div className="flex flex-col gap-2 sm:max-w-xs sm:items-end">
        <p className="flex items-start gap-1.5 text-sm text-yellow-200 sm:text-right">
          <Lock className="mt-0.5 size-4 shrink-0" aria-hidden />
          {lockedReason(release.locked)}
        </p>
        <Link to="/dashboard/subscriptions" className={buttonClass("outline", "sm")}>
          See plans
        </Link>
      </div>
    );
  }
  return (
    <a
      href={`/dashboard/downloads/releases/${release.id}`}
      download
      className={buttonClass("primary", "md")}
      aria-label={label}
      onClick={() => toast({ title: "Download started successfully!" })}
    >
      <Download className="size-4" aria-hidden /> Download
    </a>
  );
}

export function ReleaseShelf({ shelf }: { shelf: ChannelShelf }) {
  const { product, channel, latest, older } = shelf;
  const name = `${product} ${CHANNEL_TITLE[channel]}`;
  return (
    <Card>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h2 className="text-lg font-bold">
              {product} <span className="font-semibold text-muted">· {CHANNEL_TITLE[channel]}</span>
            </h2>
            <Badge tone="orange">v{latest.version}</Badge>
            <Badge tone="green">latest</Badge>
          </div>
          <p className="mt-1 text-xs wrap-anywhere text-muted">
            {latest.fileName} · {formatFileSize(latest.size)}
            {latest.publishedAt ? (
              <>
                {" "}
                · <LocalTime ms={latest.publishedAt} />
              </>
            ) : null}{" "}
            · Requires Active Subscription
          </p>
          <Checksum sha256={latest.sha256} />
        </div>
        <GetRelease release={latest} label={`Download ${name} ${latest.version}`} />
      </div>
      {latest.notesHtml ? <div className={`mt-3 ${NOTES}`} dangerouslySetInnerHTML={{ __html: latest.notesHtml }} /> : null}
      {older.length > 0 ? (
        <details className="mt-4">
          <summary className="cursor-pointer text-sm text-muted">Older versions ({older.length})</summary>
          <ul className="mt-2 space-y-3">
            {older.map((release) => (
              <li key={release.id} className="flex flex-col gap-2 border-t border-line pt-3 sm:flex-row sm:items-start">
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-semibold break-all">
                    v{release.version} <span className="font-normal text-muted">· {formatFileSize(release.size)}</span>
                  </p>
                  <Checksum sha256={release.sha256} />
                </div>
                <GetRelease release={release} label={`Download ${name} ${release.version}`} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </Card>
  );
}
