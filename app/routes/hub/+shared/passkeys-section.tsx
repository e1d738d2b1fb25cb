// The Security page's passkeys card: the member's passkeys (name, when added, when last used),
// adding one (the browser's prompt, then its answer), renaming one, and removing one after a
// confirmation. Every form posts to the page's passkeys route.
import { type FormEvent, useState } from "react";
import { useFetcher } from "react-router";
import { newPasskeySchema, PASSKEY_NAME_MAX, passkeySettingsSchema } from "~/lib/schemas/passkeys";
import type { Answer } from "~/lib/answer";
import { KeyRound, Plus, Trash2 } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ConfirmedAction } from "~/components/confirmed-action";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { promptForPasskey, useWebAuthnSupport } from "~/components/security/passkey-prompt";

const ACTION = "/dashboard/security/passkeys";
// A row disappears once its passkey is removed, so the rows' remove fetchers share a key and the
// card (which stays) reports the result.
const REMOVE_FETCHER = "remove-passkey";

const CANCELLED = { title: "No passkey added", description: "The passkey prompt was closed before a passkey was made." };

export interface PasskeyItem {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  backedUp: boolean;
}

function AddPasskey({ supported }: { supported: boolean }) {
  const register = useFetcher<Answer>();
  const { toast } = useToast();
  const [prompting, setPrompting] = useState(false);
  const { formRef: form, busy: saving, ...check } = useFetcherForm(register, newPasskeySchema, { title: "Error" });

  async function add(event: FormEvent<HTMLFormElement>) {
    check.onSubmit(event);
    if (event.defaultPrevented) return;
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    setPrompting(true);
    try {
      const outcome = await promptForPasskey(ACTION, "register");
      if (outcome.ok) await register.submit({ intent: "register", name, response: outcome.response }, { method: "post", action: ACTION });
      else if (outcome.cancelled) toast(CANCELLED);
      else if (outcome.toast) toast(outcome.toast);
    } finally {
      setPrompting(false);
    }
  }

  return (
    <form ref={form} onSubmit={add} className="flex flex-col gap-3 sm:flex-row sm:items-end" noValidate>
      <Field
        label="Name (optional)"
        name="name"
        maxLength={PASSKEY_NAME_MAX}
        placeholder="e.g. Work laptop"
        autoComplete="off"
        className="sm:flex-1"
        error={check.errors.name}
        disabled={!supported}
      />
      <Button type="submit" disabled={!supported || prompting || saving}>
        <Plus className="size-4" aria-hidden /> {prompting ? "Waiting for your passkey..." : saving ? "Saving..." : "Add a passkey"}
      </Button>
    </form>
  );
}

function RenameForm({ passkey, onDone }: { passkey: PasskeyItem; onDone: () => void }) {
  const rename = useFetcher<Answer>();
  useResultToast(rename, onDone);
  const check = useFormCheck(passkeySettingsSchema, { title: "Error", answer: rename.data });
  const busy = rename.state !== "idle";
  return (
    <rename.Form
      method="post"
      action={ACTION}
      onSubmit={check.onSubmit}
      className="flex min-w-0 flex-1 flex-col gap-3 sm:flex-row sm:items-end"
      noValidate
    >
      <input type="hidden" name="intent" value="rename" />
      <input type="hidden" name="id" value={passkey.id} />
      <Field
        label="Passkey name"
        name="name"
        defaultValue={passkey.name}
        maxLength={PASSKEY_NAME_MAX}
        required
        autoFocus
        autoComplete="off"
        className="sm:flex-1"
        error={check.errors.name}
      />
      <div className="flex gap-2">
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : "Save"}
        </Button>
        <Button variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </rename.Form>
  );
}

function PasskeyRow({ passkey }: { passkey: PasskeyItem }) {
  const [renaming, setRenaming] = useState(false);
  const remove = useFetcher<Answer>({ key: REMOVE_FETCHER });
  return (
    <li className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center">
      <KeyRound className="hidden size-5 shrink-0 text-muted sm:block" aria-hidden />
      {renaming ? (
        <RenameForm passkey={passkey} onDone={() => setRenaming(false)} />
      ) : (
        <>
          <div className="min-w-0 flex-1 space-y-1 text-sm">
            <p className="flex flex-wrap items-center gap-2 font-semibold break-all">
              {passkey.name}
              {passkey.backedUp ? <Badge tone="blue">Synced</Badge> : null}
            </p>
            <p className="text-xs text-muted">
              Added <LocalTime ms={passkey.createdAt} /> ·{" "}
              {passkey.lastUsedAt ? (
                <>
                  last used <LocalTime ms={passkey.lastUsedAt} format="datetime" />
                </>
              ) : (
                "never used yet"
              )}
            </p>
          </div>
          <div className="flex gap-2">
            <Button variant="outline" size="sm" onClick={() => setRenaming(true)} aria-label={`Rename ${passkey.name}`}>
              Rename
            </Button>
            <ConfirmedAction
              fetcher={remove}
              action={ACTION}
              fields={{ intent: "remove", id: passkey.id }}
              title="Remove this passkey?"
              cost={`"${passkey.name}" will no longer sign you in. The device may still list it until you delete it there too.`}
              confirmLabel="Remove passkey"
              busyLabel="Removing..."
              trigger={(open) => (
                <Button variant="outline" size="sm" onClick={open} aria-label={`Remove ${passkey.name}`}>
                  <Trash2 className="size-4" aria-hidden /> Remove
                </Button>
              )}
            />
          </div>
        </>
      )}
    </li>
  );
}

export function PasskeysSection({ passkeys, available }: { passkeys: PasskeyItem[]; available: boolean }) {
  useResultToast(useFetcher<Answer>({ key: REMOVE_FETCHER }));
  const supported = useWebAuthnSupport();
  return (
    <Card className="space-y-4">
      <h2 className="flex items-center gap-2 font-bold">
        <KeyRound className="size-4 text-accent" aria-hidden /> Passkeys
      </h2>
      <p className="text-sm text-muted">
        Sign in with your fingerprint, face or device PIN instead of your password. A passkey stays on your device or in your password
        manager and cannot be phished. It also works as the second step when two-factor authentication is on.
      </p>
      {!available ? (
        <p className="text-sm text-muted">Passkeys are not available on this site yet.</p>
      ) : (
        <>
          <AddPasskey supported={supported} />
          {supported ? null : (
            <p className="text-sm text-muted">This browser cannot create passkeys. Try a current browser on your phone or computer.</p>
          )}
        </>
      )}
      {passkeys.length === 0 ? (
        <p className="text-sm text-muted">You have no passkeys yet.</p>
      ) : (
        <ul className="divide-y divide-line" aria-label="Passkeys">
          {passkeys.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} />
          ))}
        </ul>
      )}
    </Card>
  );
}
