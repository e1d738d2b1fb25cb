// A licence as its owner and an admin read it: its state, when it was activated and runs out, the
// PC it is bound to, its last check and its PC resets; and the Reset PC form. The Subscriptions
// page, the reseller panel and the admin's licence page all show licences through these.
import { type ReactNode, useId } from "react";
import { useFetcher } from "react-router";
import { formatDuration } from "~/lib/format";
import { firstUseText, LICENCE_STATE_LABEL, type LicenceView, notActivatedText, pausedTimeLeft } from "~/lib/licences";
import { RotateCcw } from "./icons";
import { LocalTime } from "./local-time";
import { Badge, type BadgeTone } from "./ui/badge";
import { ConfirmedAction } from "./confirmed-action";
import { Button } from "./ui/button";
import { type ActionAnswer, useResultToast } from "./use-result-toast";

const STATE_TONE: Record<LicenceView["state"], BadgeTone> = {
  "not-activated": "blue",
  active: "green",
  paused: "yellow",
  suspended: "orange",
  expired: "gray",
  revoked: "red",
  banned: "red",
};

/** "Not activated", "Active until Nov 29, 2026", "Active — lifetime", "Paused", "Expired", "Revoked" or "Banned". */
export function LicenceStateBadge({ licence }: { licence: Pick<LicenceView, "state" | "expiresAt"> }) {
  const { state, expiresAt } = licence;
  const label =
    state === "active" ? (
      expiresAt === null ? (
        "Active — lifetime"
      ) : (
        // Long enough to need a second line in a phone's narrow column.
        <span className="whitespace-normal">
          Active until <LocalTime ms={expiresAt} className="whitespace-nowrap" />
        </span>
      )
    ) : (
      LICENCE_STATE_LABEL[state]
    );
  return <Badge tone={STATE_TONE[state]}>{label}</Badge>;
}

/**
 * When the licence runs out. A key that was never used has no expiry yet, which is not the same as
 * never expiring: it says what it is waiting for. A paused key's time stands still: it says how
 * much is left. `never` is what a lifetime key shows.
 */
export function LicenceExpiry({
  licence,
  never,
}: {
  licence: Pick<LicenceView, "state" | "plan" | "expiresAt" | "pausedAt">;
  never: string;
}) {
  const left = pausedTimeLeft(licence);
  if (licence.state === "paused")
    return left === null ? `Paused — ${firstUseText(licence.plan)}` : `Paused — ${formatDuration(left)} left when it resumes`;
  if (licence.expiresAt !== null) return <LocalTime ms={licence.expiresAt} />;
  return licence.state === "not-activated" ? notActivatedText(licence.plan) : never;
}

/**
 * One labelled line of a licence's details; pages add their own (owner, order, bans) with it. On
 * phones the label sits beside its value (the row's box gives way to the list's two columns);
 * from 640 px up, above it.
 */
export function DetailRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="contents sm:block sm:min-w-0">
      <dt className="text-muted">{label}</dt>
      <dd className="min-w-0 break-words sm:mt-0.5">{children}</dd>
    </div>
  );
}

/** The bound PC as its owner recognises it: its name, if the program sent one, and its hardware id. */
export function BoundPc({ licence, unbound }: { licence: Pick<LicenceView, "hwid" | "device">; unbound: ReactNode }) {
  if (licence.hwid === null) return unbound;
  return (
    <span className="min-w-0">
      {licence.device ? <span className="mr-2 font-semibold">{licence.device}</span> : null}
      <span className="font-mono break-all">{licence.hwid}</span>
    </span>
  );
}

const RESET_BY = {
  owner: { owner: "by you", admin: "by support" },
  // Resets by the shop are recorded as "admin" whichever staff role made them.
  admin: { owner: "by the owner", admin: "by staff" },
};

export function LicenceDetails({
  licence,
  reader,
  showExpiry = false,
  children,
}: {
  licence: LicenceView;
  /** Who reads it: the owner sees "by you" in the reset history, an admin "by the owner". */
  reader: keyof typeof RESET_BY;
  /** Pages that show the expiry elsewhere (a subscription's dates) leave it out here. */
  showExpiry?: boolean;
  children?: ReactNode;
}) {
  return (
    <dl className="grid grid-cols-[minmax(0,7rem)_minmax(0,1fr)] items-baseline gap-x-4 gap-y-2 text-sm sm:grid-cols-2 sm:items-start sm:gap-x-6 sm:gap-y-3 lg:grid-cols-3">
      <DetailRow label="Licence">
        <LicenceStateBadge licence={licence} />
      </DetailRow>
      <DetailRow label="Activated">
        {licence.activatedAt === null ? "Not yet" : <LocalTime ms={licence.activatedAt} format="datetime" />}
      </DetailRow>
      {licence.state === "suspended" && licence.suspendReason ? <DetailRow label="Why">{licence.suspendReason}</DetailRow> : null}
      {showExpiry ? (
        <DetailRow label="Expires">
          <LicenceExpiry licence={licence} never="Never" />
        </DetailRow>
      ) : null}
      <DetailRow label="Bound PC">
        <BoundPc licence={licence} unbound="No PC bound" />
      </DetailRow>
      <DetailRow label="Last check">
        {licence.lastCheckAt === null ? (
          "Never checked"
        ) : (
          <>
            <LocalTime ms={licence.lastCheckAt} format="datetime" />
            {licence.lastCheckPlace ? ` · ${licence.lastCheckPlace}` : null}
          </>
        )}
      </DetailRow>
      <DetailRow label="Includes">
        {licence.entitlements.length === 0 ? "The program itself" : licence.entitlements.map((e) => e.label).join(", ")}
      </DetailRow>
      <DetailRow label="PC resets">
        {licence.resets.length === 0 ? (
          "None"
        ) : (
          <ul className="space-y-0.5">
            {licence.resets.map((reset) => (
              <li key={`${reset.at}-${reset.by}`}>
                <LocalTime ms={reset.at} format="datetime" /> {RESET_BY[reader][reset.by]}
              </li>
            ))}
          </ul>
        )}
      </DetailRow>
      {children}
    </dl>
  );
}

// A member's own resets, wherever the form shows (their subscriptions, their reseller keys), are
// answered by the Subscriptions page's action; the admin's licence page answers its own.
const OWNER_RESET_ACTION = "/dashboard/subscriptions";

/**
 * Frees the key's PC so the next validation binds a new one, after a confirmation that says what
 * it costs: for the owner, the reset allowance (`cooldownDays`), for staff nothing the owner pays.
 * While the owner's cooldown runs (`nextResetAt`; admins have none) the button stays disabled and
 * says when it opens again; with no PC bound there is nothing to reset, so only that date (if any) shows.
 */
export function ResetPcForm({
  licence,
  action = OWNER_RESET_ACTION,
  nextResetAt = null,
  cooldownDays,
  size = "md",
}: {
  licence: Pick<LicenceView, "id" | "key" | "hwid">;
  action?: string;
  nextResetAt?: number | null;
  /** The owner's allowance: one reset per this many days. Absent for staff, who have none. */
  cooldownDays?: number;
  size?: "sm" | "md";
}) {
  const reset = useFetcher<ActionAnswer>();
  useResultToast(reset);
  const noteId = useId();
  const note =
    nextResetAt === null ? null : (
      <span id={noteId} className="text-xs text-muted">
        Next reset possible on <LocalTime ms={nextResetAt} />
      </span>
    );
  if (licence.hwid === null) return note;
  const moves = "The key stops working on its current PC at once, and binds to the next PC that starts the loader.";
  const every = cooldownDays === 1 ? "day" : `${cooldownDays} days`;
  const cost =
    cooldownDays === undefined
      ? `${moves} The owner's reset allowance is not used.`
      : cooldownDays > 0
        ? `${moves} You can reset a key's PC once every ${every}: the next reset of this key is possible in ${cooldownDays === 1 ? "a day" : every}.`
        : moves;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <ConfirmedAction
        fetcher={reset}
        action={action}
        fields={{ intent: "reset-hwid", licenceId: String(licence.id) }}
        title="Reset this key's PC?"
        cost={cost}
        confirmLabel="Reset PC"
        busyLabel="Resetting..."
        trigger={(open) => (
          <Button
            variant="outline"
            size={size}
            disabled={nextResetAt !== null}
            onClick={open}
            aria-label={`Reset PC for ${licence.key}`}
            aria-describedby={note ? noteId : undefined}
          >
            <RotateCcw className="size-4" aria-hidden /> Reset PC
          </Button>
        )}
      />
      {note}
    </div>
  );
}
