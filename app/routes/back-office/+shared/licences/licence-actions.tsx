// What staff may do to a licence, by role: reset its PC (support and admins); ban or unban the key
// or its PC, pause and resume it (admins). Each change posts an intent to the licence page's action.
import { useFetcher } from "react-router";
import { ConfirmedAction } from "~/components/confirmed-action";
import { ResetPcForm } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { Button, type ButtonVariant } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, SelectField } from "~/components/ui/field";
import { useResultToast } from "~/components/use-result-toast";
import type { Answer } from "~/lib/answer";
import type { AdminLicenceView } from "~/lib/licences";
import { licenceAdminSchema, licenceInputTitle } from "~/lib/schemas/licences";
import { LICENCES_PATH } from "~/routes/back-office/+shared/licence-lookup";

/**
 * One change to the licence behind a confirmation that says what it costs; with `reasonLabel`, the
 * dialog asks for the reason the audit log keeps. Undoing a change (unban, resume) needs no dialog.
 */
function LicenceAction({
  fields,
  label,
  variant,
  title,
  cost,
  reasonLabel,
}: {
  fields: Record<string, string>;
  label: string;
  variant: ButtonVariant;
  title?: string;
  cost?: string;
  reasonLabel?: string;
}) {
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher);
  const busy = fetcher.state !== "idle";
  if (!title || !cost) {
    return (
      <fetcher.Form method="post">
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Button type="submit" variant={variant} disabled={busy}>
          {busy ? "Saving..." : label}
        </Button>
      </fetcher.Form>
    );
  }
  return (
    <ConfirmedAction
      fetcher={fetcher}
      fields={fields}
      title={title}
      cost={cost}
      confirmLabel={label}
      busyLabel="Saving..."
      variant={variant}
      schema={reasonLabel ? licenceAdminSchema : undefined}
      problemTitle={licenceInputTitle}
      trigger={(open) => (
        <Button variant={variant} onClick={open}>
          {label}
        </Button>
      )}
    >
      {reasonLabel
        ? (errors) => (
            <Field label={reasonLabel} name="reason" required maxLength={200} autoComplete="off" error={errors.reason} data-autofocus />
          )
        : undefined}
    </ConfirmedAction>
  );
}

export function ActionsCards({
  licence,
  may,
  entitlements,
}: {
  licence: AdminLicenceView;
  may: { ban: boolean; time: boolean; entitlements: boolean };
  entitlements: { name: string; label: string }[];
}) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      {may.entitlements ? <EntitlementsCard licence={licence} defined={entitlements} /> : null}
      {may.ban ? <KeyBanCard licence={licence} /> : null}
      {may.time ? <PauseCard licence={licence} /> : null}
      <Card className="space-y-3">
        <h2 className="font-bold">PC</h2>
        {licence.hwid === null ? (
          <p className="text-sm text-muted">No PC bound: the next validation binds one.</p>
        ) : (
          <>
            <p className="text-sm text-muted">Resetting frees the key for a new PC at once (the owner's cooldown does not apply).</p>
            <ResetPcForm licence={licence} action={LICENCES_PATH} />
            {!may.ban ? null : licence.hwidBan ? (
              <LicenceAction fields={{ intent: "unban-hwid", hwid: licence.hwid }} label="Unban PC" variant="outline" />
            ) : (
              <LicenceAction
                fields={{ intent: "ban-hwid", hwid: licence.hwid }}
                label="Ban PC"
                variant="danger"
                title="Ban this PC?"
                cost="Every key answers BANNED on this PC, this one and any other, until the ban is lifted."
                reasonLabel="Reason for banning the PC"
              />
            )}
          </>
        )}
      </Card>
    </div>
  );
}

function KeyBanCard({ licence }: { licence: AdminLicenceView }) {
  const id = String(licence.id);
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Key</h2>
      {licence.state === "banned" ? (
        <>
          <p className="text-sm text-muted">The key answers BANNED on every PC until the ban is lifted.</p>
          <LicenceAction fields={{ intent: "unban-key", licenceId: id }} label="Unban key" variant="outline" />
        </>
      ) : (
        <>
          <p className="text-sm text-muted">A banned key answers BANNED on every PC. The owner sees that it is banned.</p>
          <LicenceAction
            fields={{ intent: "ban-key", licenceId: id }}
            label="Ban key"
            variant="danger"
            title="Ban this key?"
            cost={`${licence.key} stops working on every PC at once, and its owner sees that it is banned. Its time keeps running.`}
            reasonLabel="Reason for banning the key"
          />
        </>
      )}
    </Card>
  );
}

/** Pausing stops a key and its clock; resuming gives back the paused time. */
function PauseCard({ licence }: { licence: AdminLicenceView }) {
  const id = String(licence.id);
  if (licence.state === "banned" || licence.state === "revoked" || licence.state === "expired") return null;
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Pause</h2>
      {licence.state === "paused" ? (
        <>
          <p className="text-sm text-muted">
            Paused since <LocalTime ms={licence.pausedAt!} format="datetime" />. Resuming moves its expiry out by the time it was paused.
          </p>
          <LicenceAction fields={{ intent: "resume", licenceId: id }} label="Resume key" variant="outline" />
        </>
      ) : (
        <>
          <p className="text-sm text-muted">A paused key answers SUSPENDED and its time stands still; the owner sees it paused.</p>
          <LicenceAction
            fields={{ intent: "pause", licenceId: id }}
            label="Pause key"
            variant="danger"
            title="Pause this key?"
            cost={`${licence.key} stops working at once (the loader is told SUSPENDED) until it is resumed. Its time stands still meanwhile, so the owner loses none of it.`}
            reasonLabel="Reason for pausing the key"
          />
        </>
      )}
    </Card>
  );
}

/** What this key alone includes: one entitlement granted or removed, beside what its plan gave it. */
function EntitlementsCard({ licence, defined }: { licence: AdminLicenceView; defined: { name: string; label: string }[] }) {
  const id = String(licence.id);
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher);
  const held = new Set(licence.entitlements.map((e) => e.name));
  const grantable = defined.filter((e) => !held.has(e.name));
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Entitlements</h2>
      <p className="text-sm text-muted">Copied from its plan when sold. A change here is for this key only.</p>
      <ul className="flex flex-wrap gap-2">
        {licence.entitlements.map((e) => (
          <li key={e.name}>
            <LicenceAction
              fields={{ intent: "remove-entitlement", licenceId: id, entitlement: e.name }}
              label={`Remove ${e.label}`}
              variant="outline"
            />
          </li>
        ))}
      </ul>
      {grantable.length > 0 ? (
        <fetcher.Form method="post" className="flex flex-wrap items-end gap-2">
          <input type="hidden" name="intent" value="grant-entitlement" />
          <input type="hidden" name="licenceId" value={id} />
          <SelectField
            label="Grant"
            name="entitlement"
            options={grantable.map((e) => ({ value: e.name, label: e.label }))}
            className="min-w-40"
          />
          <Button type="submit" disabled={fetcher.state !== "idle"}>
            Grant
          </Button>
        </fetcher.Form>
      ) : null}
    </Card>
  );
}
