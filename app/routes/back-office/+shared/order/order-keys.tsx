// The keys of an order on its back-office page: each key masked, with its licence, and the
// buttons staff may use on it (reveal; revoke or replace with a reason), and the order-wide
// buttons (resend the key e-mail, cancel). Every form posts an intent to the page's action.
import { useFetcher } from "react-router";
import type { OrderKeyView, UndeliveredMail } from "~/lib/orders";
import { orderActionSchema } from "~/lib/schemas/orders";
import type { Answer } from "~/lib/answer";
import { LicenceStateBadge } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import type { Column } from "~/components/ui/responsive-table";
import { ConfirmedAction } from "~/components/confirmed-action";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";

const KEY_STATE_BADGE: Record<OrderKeyView["state"], { tone: "green" | "red" | "yellow"; label: string }> = {
  delivered: { tone: "green", label: "Delivered" },
  revoked: { tone: "red", label: "Revoked" },
  backordered: { tone: "yellow", label: "Waiting for stock" },
};

function RevealButton({ keyRef }: { keyRef: string }) {
  const fetcher = useFetcher<Answer<{ key: string }>>();
  const revealed = fetcher.data?.ok && fetcher.data.intent === "reveal" ? fetcher.data.value.key : null;
  useResultToast(fetcher);
  if (revealed) return <code className="font-mono break-all select-all">{revealed}</code>;
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="reveal" />
      <input type="hidden" name="key" value={keyRef} />
      <Button type="submit" size="sm" variant="ghost" disabled={fetcher.state !== "idle"}>
        Reveal
      </Button>
    </fetcher.Form>
  );
}

/**
 * Revoking or replacing a key changes its row (its buttons go), so the forms share one fetcher
 * whose answer the page toasts: the toast outlives the form that asked.
 */
export const KEY_CHANGE = "order-key-change";

const KEY_CHANGE_COST = {
  revoke: "The key stops working at once on every PC and cannot be used again. The buyer is e-mailed which key stopped and your reason.",
  replace: "The key stops working at once and a new key of the same plan, from stock, is e-mailed to the buyer with your reason.",
};

/** Revoke or replace one key, with a reason, after a confirmation (admins). */
function KeyChangeForm({ keyRef, masked, intent, label }: { keyRef: string; masked: string; intent: "revoke" | "replace"; label: string }) {
  const fetcher = useFetcher<Answer>({ key: KEY_CHANGE });
  return (
    <ConfirmedAction
      fetcher={fetcher}
      fields={{ intent, key: keyRef }}
      title={`${label} key ${masked}?`}
      cost={KEY_CHANGE_COST[intent]}
      confirmLabel={`${label} key`}
      busyLabel="Saving..."
      variant={intent === "revoke" ? "danger" : "primary"}
      schema={orderActionSchema}
      problemTitle="Reason required"
      trigger={(open) => (
        <Button size="sm" variant={intent === "revoke" ? "danger" : "outline"} onClick={open}>
          {label}
        </Button>
      )}
    >
      {(errors) => (
        <Field label={`Why ${intent}?`} name="reason" required maxLength={200} autoComplete="off" error={errors.reason} data-autofocus />
      )}
    </ConfirmedAction>
  );
}

export function keyColumns(canManage: boolean): Column<OrderKeyView>[] {
  return [
    {
      label: "Key",
      value: (k) => (k.state === "backordered" ? <span className="text-muted">—</span> : <span className="font-mono">{k.masked}</span>),
    },
    { label: "Variant", value: (k) => k.variantTitle },
    { label: "State", value: (k) => <Badge tone={KEY_STATE_BADGE[k.state].tone}>{KEY_STATE_BADGE[k.state].label}</Badge> },
    {
      label: "Licence",
      value: (k) =>
        k.licence ? (
          <span>
            <LicenceStateBadge licence={k.licence} />
            {k.licence.activatedAt ? (
              <span className="text-muted">
                {" "}
                · activated <LocalTime ms={k.licence.activatedAt} />
              </span>
            ) : null}
            <span className="text-muted">{k.licence.pcBound ? " · PC bound" : " · no PC"}</span>
          </span>
        ) : (
          <span className="text-muted">—</span>
        ),
    },
    {
      label: "Actions",
      value: (k) =>
        k.state === "backordered" ? null : (
          <div className="flex flex-wrap items-center gap-2 whitespace-normal">
            <RevealButton keyRef={k.ref} />
            {canManage && k.state === "delivered" ? (
              <>
                <KeyChangeForm keyRef={k.ref} masked={k.masked} intent="revoke" label="Revoke" />
                {k.replaceable ? <KeyChangeForm keyRef={k.ref} masked={k.masked} intent="replace" label="Replace" /> : null}
              </>
            ) : null}
          </div>
        ),
    },
  ];
}

/** Sends the key e-mail again (no confirmation: it costs nothing but an e-mail, once a minute). */
export function ResendButton() {
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher);
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="resend" />
      <Button type="submit" variant="outline" disabled={busy}>
        {busy ? "Sending..." : "Resend key e-mail"}
      </Button>
    </fetcher.Form>
  );
}

/** Cancels the order, with an optional reason for the timeline, after a confirmation. */
export function CancelOrderButton({ number, seen }: { number: string; seen: number }) {
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher);
  return (
    <ConfirmedAction
      fetcher={fetcher}
      fields={{ intent: "cancel", seen: String(seen) }}
      title={`Cancel order ${number}?`}
      cost="The order closes for good: no key is handed out for it, even if a payment arrives later. A key it already holds goes back to stock. Refund the buyer by hand first."
      confirmLabel="Cancel order"
      busyLabel="Cancelling..."
      trigger={(open) => (
        <Button variant="danger" onClick={open}>
          Cancel order
        </Button>
      )}
    >
      {() => <Field label="Reason (optional)" name="reason" maxLength={200} autoComplete="off" data-autofocus />}
    </ConfirmedAction>
  );
}

/**
 * The order's e-mail to its buyer could not be delivered: what failed, and (for staff who may
 * resend) the buyer's corrected address, to which the keys are then sent.
 */
export function UndeliveredNotice({ mail, canCorrect }: { mail: UndeliveredMail; canCorrect: boolean }) {
  const fetcher = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, orderActionSchema, { title: "Address" });
  return (
    <section role="alert" className="rounded-xl border border-red-500/40 bg-red-500/10 p-5 text-sm">
      <h2 className="font-bold text-red-200">The buyer's e-mail could not be delivered</h2>
      <p className="mt-1 text-zinc-200">
        The e-mail to <span className="font-semibold break-all">{mail.to || "(no address)"}</span> failed on{" "}
        <LocalTime ms={mail.at} format="datetime" />
        {mail.error ? `: ${mail.error}` : ""}. The keys were handed out all the same.
      </p>
      {canCorrect ? (
        <fetcher.Form
          ref={formRef}
          method="post"
          onSubmit={onSubmit}
          noValidate
          className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end"
        >
          <input type="hidden" name="intent" value="correct-email" />
          <Field
            label="Corrected e-mail"
            name="email"
            type="email"
            required
            autoComplete="off"
            maxLength={254}
            className="sm:flex-1"
            error={errors.email}
          />
          <Button type="submit" disabled={busy}>
            {busy ? "Sending..." : "Send the keys to this address"}
          </Button>
        </fetcher.Form>
      ) : null}
      {canCorrect ? <p className="mt-2 text-xs text-muted">The order, its keys and their licences move to the corrected address.</p> : null}
    </section>
  );
}
