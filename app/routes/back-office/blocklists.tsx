// /dashboard/blocklists: the shop's blocklist (decision 093): e-mail addresses and domains, PCs, IP
// addresses and ranges, countries and Discord accounts, each with a reason and an optional expiry.
// Support reads it; admins block and lift (blocks.manage), each audited.
import { BlockExpiryField } from "~/components/block-expiry-field";
import { useFetcher } from "react-router";
import { ConfirmedAction } from "~/components/confirmed-action";
import { LocalTime } from "~/components/local-time";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { Field, SelectField } from "~/components/ui/field";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerInvalid } from "~/http/answer.server";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { BLOCK_KIND_LABEL, BLOCK_KINDS } from "~/lib/fraud";
import { can } from "~/lib/roles";
import { blockSchema, liftBlockSchema } from "~/lib/schemas/fraud";
import * as v from "valibot";
import { addBlock, liftBlock, listBlocks } from "~/server/blocks/blocks.server";
import type { Route } from "./+types/blocklists";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("blocks.view")];

export const meta: Route.MetaFunction = () => [{ title: `Blocklists | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const viewer = currentViewer(context);
  return { ...(await listBlocks(app(context).db)), mayManage: can(viewer.role, "blocks.manage") };
}

const schema = v.variant("intent", [blockSchema, liftBlockSchema]);
const NOT_BLOCKED = "Not blocked";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "blocks", schema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: NOT_BLOCKED } });
  const actor = { viewer: submission.viewer, ip: clientAddress(request) };
  const { db } = app(context);
  const input = submission.value;
  if (input.intent === "lift")
    return answer(await liftBlock(db, actor, input.blockId), {
      intent: "lift",
      titles: { conflict: "Not lifted" },
      success: ({ value }) => ({ title: "Block lifted", description: `${value} is no longer blocked.` }),
    });
  return answer(await addBlock(db, actor, input), {
    intent: "block",
    titles: { invalid: NOT_BLOCKED },
    success: ({ created }) =>
      created
        ? { title: "Blocked", description: `${BLOCK_KIND_LABEL[input.kind]} blocked.` }
        : { title: "Already blocked", description: "That block stands already." },
  });
}

function AddBlock() {
  const fetcher = useFetcher();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, blockSchema, { title: NOT_BLOCKED });
  return (
    <Card as="section" aria-labelledby="add-block">
      <h2 id="add-block" className="text-lg font-semibold">
        Block
      </h2>
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} noValidate className="mt-4 grid gap-3 sm:grid-cols-2">
        <input type="hidden" name="intent" value="block" />
        <SelectField
          label="What"
          name="kind"
          required
          defaultValue="email"
          options={BLOCK_KINDS.map((kind) => ({ value: kind, label: BLOCK_KIND_LABEL[kind] }))}
          error={errors.kind}
        />
        <Field
          label="Value"
          name="value"
          required
          maxLength={256}
          hint="An address or domain, a hardware id, 203.0.113.7 or 203.0.113.0/24, a country (DE) or a Discord user id"
          error={errors.value}
        />
        <Field label="Reason" name="reason" required maxLength={200} error={errors.reason} />
        <BlockExpiryField error={errors.expires} />
        <div className="sm:col-span-2">
          <Button type="submit" disabled={busy}>
            {busy ? "Blocking..." : "Block"}
          </Button>
        </div>
      </fetcher.Form>
    </Card>
  );
}

type Row = Route.ComponentProps["loaderData"]["standing"][number];

// One fetcher for every Lift button, toasted by the page: a lifted row leaves the list, its button with it.
const LIFT = "lift-block";

function Lift({ row }: { row: Row }) {
  const fetcher = useFetcher({ key: LIFT });
  return (
    <ConfirmedAction
      fetcher={fetcher}
      fields={{ intent: "lift", blockId: String(row.id) }}
      title={`Lift the block on ${row.value}?`}
      cost="It stops being refused at once: sign-ins, orders and licence checks from it go through again."
      confirmLabel="Lift block"
      busyLabel="Lifting..."
      variant="primary"
      problemTitle="Not lifted"
      trigger={(open) => (
        <Button variant="outline" size="sm" onClick={open}>
          Lift
        </Button>
      )}
    />
  );
}

export default function Blocklists({ loaderData }: Route.ComponentProps) {
  const { standing, ended, mayManage } = loaderData;
  useResultToast(useFetcher({ key: LIFT }));
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">Blocklists</h1>
      <p className="text-sm text-muted">
        A blocked buyer's paid order waits for review instead of its keys; a blocked PC's checks answer BANNED for any key; a blocked
        address, range or country cannot sign up, sign in or check a licence; a blocked Discord account cannot be linked.
      </p>
      {mayManage ? <AddBlock /> : null}
      <Card as="section" aria-labelledby="standing">
        <h2 id="standing" className="text-lg font-semibold">
          Standing blocks
        </h2>
        {standing.length === 0 ? (
          <EmptyState className="mt-4 text-center" title="Nothing is blocked">
            Block from here, or from a customer's page with what is known of them.
          </EmptyState>
        ) : (
          <ResponsiveTable
            label="Standing blocks"
            rows={standing}
            rowKey={(row) => String(row.id)}
            columns={[
              { label: "What", value: (row) => row.kindLabel },
              { label: "Value", value: (row) => <span className="font-mono text-xs break-all">{row.value}</span>, wrap: true },
              { label: "Reason", value: (row) => row.reason, wrap: true },
              { label: "Since", value: (row) => <LocalTime ms={row.createdAt} format="date" /> },
              { label: "Expires", value: (row) => (row.expiresAt ? <LocalTime ms={row.expiresAt} format="date" /> : "Never") },
              ...(mayManage ? [{ label: "Action", value: (row: Row) => <Lift row={row} /> }] : []),
            ]}
          />
        )}
      </Card>
      {ended.length > 0 ? (
        <Card as="section" aria-labelledby="ended">
          <h2 id="ended" className="text-lg font-semibold">
            Lifted or expired
          </h2>
          <ResponsiveTable
            label="Lifted or expired blocks"
            rows={ended}
            rowKey={(row) => String(row.id)}
            columns={[
              { label: "What", value: (row) => row.kindLabel },
              { label: "Value", value: (row) => <span className="font-mono text-xs break-all">{row.value}</span>, wrap: true },
              { label: "Reason", value: (row) => row.reason, wrap: true },
              {
                label: "Ended",
                value: (row) =>
                  row.liftedAt ? (
                    <LocalTime ms={row.liftedAt} format="date" />
                  ) : row.expiresAt ? (
                    <LocalTime ms={row.expiresAt} format="date" />
                  ) : (
                    "—"
                  ),
              },
            ]}
          />
        </Card>
      ) : null}
    </div>
  );
}
