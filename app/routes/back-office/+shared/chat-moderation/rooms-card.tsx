// The chat's rooms on the moderation page: each room's rules (slow mode, links, blocked words, how
// long messages are kept), archiving and restoring, and a form for a new room: open to every
// member, announcements only staff post in, or a product's room for its licence holders.
import { useState } from "react";
import { useFetcher } from "react-router";
import { ConfirmedAction } from "~/components/confirmed-action";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, SelectField, TextAreaField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { type LinkRule, RETENTION_DEFAULT_DAYS, type RoomKind, type StaffRoom } from "~/lib/chat";
import { chatRoomSchema } from "~/lib/schemas/chat";

const ROOMS_ACTION = "/dashboard/chat-moderation/rooms";

const KIND_LABEL: Record<RoomKind, string> = {
  open: "Every member posts",
  announcements: "Announcements: staff post, members read",
  product: "A product's licence holders",
};

const LINK_LABEL: Record<LinkRule, string> = {
  allowed: "Everyone may post links",
  staff: "Only staff may post links",
  off: "No links",
};

const FIXED = ["general", "announcements"];

function RulesForm({ room }: { room: StaffRoom }) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, chatRoomSchema, { title: "Please check the form" });
  const { rules } = room;
  return (
    <fetcher.Form
      ref={formRef}
      method="post"
      action={ROOMS_ACTION}
      onSubmit={onSubmit}
      noValidate
      className="mt-3 grid gap-3 sm:grid-cols-2"
    >
      <input type="hidden" name="intent" value="settings" />
      <input type="hidden" name="room" value={room.slug} />
      <Field
        label="Slow mode (seconds between a member's messages)"
        name="slowModeSeconds"
        inputMode="numeric"
        defaultValue={String(rules.slowModeSeconds)}
        hint="0 turns it off. Staff are never slowed."
        error={errors.slowModeSeconds}
      />
      <Field
        label="Keep messages for (days)"
        name="retentionDays"
        inputMode="numeric"
        defaultValue={String(rules.retentionDays)}
        hint={`Older messages are deleted. Default ${RETENTION_DEFAULT_DAYS}.`}
        error={errors.retentionDays}
      />
      <SelectField
        label="Links"
        name="linkRule"
        defaultValue={rules.linkRule}
        options={Object.entries(LINK_LABEL).map(([value, label]) => ({ value, label }))}
        error={errors.linkRule}
      />
      <TextAreaField
        label="Blocked words"
        name="blockedWords"
        rows={3}
        defaultValue={rules.blockedWords.join("\n")}
        hint="One a line. A message holding one as a word of its own is refused."
        error={errors.blockedWords}
      />
      <div className="sm:col-span-2">
        <Button type="submit" size="sm" disabled={busy}>
          {busy ? "Saving..." : "Save rules"}
        </Button>
      </div>
    </fetcher.Form>
  );
}

function ArchiveButton({ room }: { room: StaffRoom }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  if (room.archivedAt !== null) {
    return (
      <fetcher.Form method="post" action={ROOMS_ACTION}>
        <input type="hidden" name="intent" value="restore" />
        <input type="hidden" name="room" value={room.slug} />
        <Button type="submit" size="sm" variant="outline" disabled={fetcher.state !== "idle"} aria-label={`Restore ${room.name}`}>
          Restore
        </Button>
      </fetcher.Form>
    );
  }
  return (
    <ConfirmedAction
      fetcher={fetcher}
      action={ROOMS_ACTION}
      fields={{ intent: "archive", room: room.slug }}
      title={`Archive ${room.name}?`}
      cost="Everyone in it is disconnected and it leaves every member's sidebar. Its messages stay until their retention ends, and you can restore it."
      confirmLabel="Archive room"
      busyLabel="Archiving..."
      trigger={(open) => (
        <Button size="sm" variant="outline" onClick={open} aria-label={`Archive ${room.name}`}>
          Archive
        </Button>
      )}
    />
  );
}

function CreateRoom({ products }: { products: string[] }) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, chatRoomSchema, { title: "Please check the form" });
  const [kind, setKind] = useState<RoomKind>("open");
  return (
    <fetcher.Form
      ref={formRef}
      method="post"
      action={ROOMS_ACTION}
      onSubmit={onSubmit}
      noValidate
      className="mt-3 grid gap-3 sm:grid-cols-3 sm:items-start"
    >
      <input type="hidden" name="intent" value="create" />
      <Field label="Name" name="name" autoComplete="off" error={errors.name} />
      <div className="space-y-1.5">
        <label htmlFor="new-room-kind" className="block text-sm font-medium text-zinc-200">
          Who it is for
        </label>
        <select
          id="new-room-kind"
          name="kind"
          value={kind}
          onChange={(event) => setKind(event.target.value as RoomKind)}
          className="h-10 w-full rounded-md border border-line bg-panel-2 px-3 text-sm text-zinc-100 focus:border-accent focus:outline-none"
        >
          {Object.entries(KIND_LABEL).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {kind === "product" ? (
        products.length > 0 ? (
          <SelectField
            label="Product"
            name="product"
            placeholder="Choose a product..."
            options={products.map((product) => ({ value: product, label: product }))}
            error={errors.product}
          />
        ) : (
          <Field label="Product" name="product" hint="The product's name, as its licences show it." error={errors.product} />
        )
      ) : (
        <input type="hidden" name="product" value="" />
      )}
      <div className="sm:col-span-3">
        <Button type="submit" size="sm" disabled={busy}>
          {busy ? "Creating..." : "Create room"}
        </Button>
      </div>
    </fetcher.Form>
  );
}

export function RoomsCard({ rooms, products }: { rooms: StaffRoom[]; products: string[] }) {
  return (
    <Card as="section" aria-labelledby="chat-rooms">
      <h2 id="chat-rooms" className="text-xl font-bold">
        Rooms
      </h2>
      <p className="mt-1 text-sm text-muted">
        A product&apos;s room is for members holding a live licence of it: a member whose licence ends is disconnected within five minutes.
      </p>
      <ul aria-label="Chat rooms" className="mt-4 space-y-3">
        {rooms.map((room) => (
          <li key={room.slug} className="rounded-lg border border-line bg-panel-2 p-4 text-sm">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <p className="flex flex-wrap items-center gap-2">
                <span className="font-semibold">{room.name}</span>
                <span className="text-muted">{room.product ? `${room.product} licence holders` : KIND_LABEL[room.kind]}</span>
                {room.archivedAt !== null ? <Badge tone="gray">Archived</Badge> : null}
              </p>
              {FIXED.includes(room.slug) ? null : <ArchiveButton room={room} />}
            </div>
            <details className="mt-2">
              <summary className="cursor-pointer text-accent">
                Rules: {room.rules.slowModeSeconds > 0 ? `slow mode ${room.rules.slowModeSeconds} s` : "no slow mode"},{" "}
                {LINK_LABEL[room.rules.linkRule].toLowerCase()}, {room.rules.blockedWords.length} blocked words, kept{" "}
                {room.rules.retentionDays} days
              </summary>
              <RulesForm room={room} />
            </details>
          </li>
        ))}
      </ul>
      <h3 className="mt-6 font-semibold">New room</h3>
      <CreateRoom products={products} />
    </Card>
  );
}
