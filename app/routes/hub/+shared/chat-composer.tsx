// The chat's message box: typing tells the room (at most once a second), and "@" followed by the
// start of a name asks the room for members to mention, offered as a list under the box (arrow
// keys and Enter or Tab pick one, Escape closes it).
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Send } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { inputClass } from "~/components/ui/input-class";
import { type ChatMember, MAX_MESSAGE_LENGTH } from "~/lib/chat";

const TYPING_EVERY_MS = 1000;

/** The "@name" being typed at the caret, if any: where it starts and what follows the "@". */
function mentionAt(value: string, caret: number): { start: number; query: string } | null {
  const match = /(^|\s)@([A-Za-z0-9_.-]{0,24})$/.exec(value.slice(0, caret));
  return match ? { start: caret - match[2]!.length - 1, query: match[2]! } : null;
}

export function ChatComposer({
  disabled,
  onSend,
  onTyping,
  onMentionQuery,
  suggestions,
}: {
  disabled: boolean;
  onSend: (content: string) => boolean;
  onTyping: () => void;
  onMentionQuery: (prefix: string) => void;
  /** The members the room offered for the query being typed (null: none asked for). */
  suggestions: { prefix: string; members: ChatMember[] } | null;
}) {
  const [draft, setDraft] = useState("");
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const lastTypingRef = useRef(0);
  const listId = useId();
  const offered = mention && suggestions?.prefix === mention.query ? suggestions.members : [];
  const open = offered.length > 0;

  useEffect(() => {
    if (mention) onMentionQuery(mention.query);
  }, [mention, onMentionQuery]);

  function onDraft(value: string, caret: number) {
    setDraft(value);
    setMention(mentionAt(value, caret));
    setActive(0);
    const now = Date.now();
    if (value.trim() && now - lastTypingRef.current > TYPING_EVERY_MS) {
      lastTypingRef.current = now;
      onTyping();
    }
  }

  function pick(member: ChatMember) {
    if (!mention) return;
    const caret = inputRef.current?.selectionStart ?? draft.length;
    const next = `${draft.slice(0, mention.start)}@${member.username} ${draft.slice(caret)}`;
    setDraft(next);
    setMention(null);
    const at = mention.start + member.username.length + 2;
    requestAnimationFrame(() => {
      inputRef.current?.focus();
      inputRef.current?.setSelectionRange(at, at);
    });
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (!open) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setActive((i) => (i + (event.key === "ArrowDown" ? 1 : offered.length - 1)) % offered.length);
    } else if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      pick(offered[active] ?? offered[0]!);
    } else if (event.key === "Escape") {
      event.preventDefault();
      setMention(null);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const content = draft.trim();
    if (!content) return;
    if (onSend(content)) {
      setDraft("");
      setMention(null);
    }
  }

  return (
    <form onSubmit={submit} className="relative flex gap-2 border-t border-line p-3">
      <label htmlFor={`${listId}-input`} className="sr-only">
        Message
      </label>
      <input
        ref={inputRef}
        id={`${listId}-input`}
        value={draft}
        onChange={(e) => onDraft(e.target.value, e.target.selectionStart ?? e.target.value.length)}
        onKeyDown={onKeyDown}
        onBlur={() => setTimeout(() => setMention(null), 150)}
        maxLength={MAX_MESSAGE_LENGTH}
        placeholder="Type a message... (@ to mention)"
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={`${listId}-list`}
        aria-activedescendant={open ? `${listId}-option-${active}` : undefined}
        className={inputClass}
      />
      <Button type="submit" disabled={!draft.trim() || disabled} aria-label="Send message">
        <Send className="size-4" aria-hidden />
      </Button>
      <ul
        id={`${listId}-list`}
        role="listbox"
        aria-label="Members to mention"
        hidden={!open}
        className="absolute bottom-full left-3 z-10 mb-1 max-h-56 w-64 max-w-[calc(100%-1.5rem)] overflow-y-auto rounded-md border border-line bg-panel-2 py-1 shadow-xl"
      >
        {offered.map((member, i) => (
          <li
            key={member.userId}
            id={`${listId}-option-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={(event) => {
              // Keeps the focus in the box, so the pick lands where the caret is.
              event.preventDefault();
              pick(member);
            }}
            className={`cursor-pointer px-3 py-1.5 text-sm ${i === active ? "bg-accent/15 text-accent" : "text-zinc-200"}`}
          >
            @{member.username}
          </li>
        ))}
      </ul>
    </form>
  );
}
