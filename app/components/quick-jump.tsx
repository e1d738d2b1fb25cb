// The back office's quick jump in the dashboard's shell: a plain GET form to the results page
// (/dashboard/search?q=, where a direct hit opens its record), which script turns into a combobox
// listing what the query finds as it is typed. "/" or Ctrl/Cmd+K brings the focus here from any
// dashboard page.
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { Form, useFetcher, useLocation, useNavigate } from "react-router";
import { QUICK_JUMP_PATH, type QuickJumpSection, quickJumpAsks, type RecordKind } from "~/lib/quick-jump";
import { Search } from "./icons";
import { inputClass } from "./ui/input-class";
import { counted } from "~/lib/format";

/** What the results page's loader answers (the box asks with list=1, so it never jumps). */
interface QuickJumpAnswer {
  q: string;
  sections: QuickJumpSection[];
  error: string | null;
}

/** Typing pauses this long before the box asks: one request per word, not per keystroke. */
const PAUSE_MS = 150;

const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

/** "/" (outside a text box) or Ctrl/Cmd+K calls `focus`, on every page the shell draws. */
function useShortcut(focus: () => void) {
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target);
      const commandK = event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey;
      if (!slash && !commandK) return;
      event.preventDefault();
      focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [focus]);
}

/**
 * The box. `reveal` makes it visible first where it sits in a folded menu (phones), so the
 * shortcut still finds it.
 */
export function QuickJump({ kinds, reveal }: { kinds: readonly RecordKind[]; reveal: () => void }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const fetcher = useFetcher<QuickJumpAnswer>();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [value, setValue] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const asked = value.trim();

  useShortcut(() => {
    flushSync(reveal);
    inputRef.current?.focus();
    inputRef.current?.select();
  });

  // A new page: the box starts empty again.
  useEffect(() => {
    setValue("");
    setOpen(false);
  }, [pathname]);

  const { load } = fetcher;
  useEffect(() => {
    if (asked.length < 2) return;
    const timer = setTimeout(() => void load(`${QUICK_JUMP_PATH}?${new URLSearchParams({ q: asked, list: "1" })}`), PAUSE_MS);
    return () => clearTimeout(timer);
  }, [asked, load]);

  const answer = fetcher.data;
  const sections = asked.length >= 2 && answer && !answer.error ? answer.sections.filter((section) => section.hits.length > 0) : [];
  const options = [
    ...sections.flatMap((section) => section.hits.map((hit) => ({ href: hit.href }))),
    ...(asked.length >= 2 ? [{ href: `${QUICK_JUMP_PATH}?${new URLSearchParams({ q: asked, list: "1" })}` }] : []),
  ];
  const shown = open && asked.length >= 2;
  const current = answer?.q === asked ? answer : null;
  const optionId = (index: number) => `${id}-option-${index}`;
  const count = sections.reduce((sum, section) => sum + section.hits.length, 0);
  const status = !shown
    ? ""
    : !current || fetcher.state === "loading"
      ? "Searching…"
      : (current.error ?? (count === 0 ? "Nothing found" : `${counted(count, "result")}`));

  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: "nearest" });
    // optionId is derived from id alone.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active]);

  // Leaving for a record or the results page: the box lets go of the focus, as a new page would
  // (on a phone it is about to fold away with the menu), so "/" finds it again.
  const leave = () => {
    setOpen(false);
    inputRef.current?.blur();
  };
  const go = (href: string) => {
    leave();
    void navigate(href);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (options.length === 0) return;
      event.preventDefault();
      setOpen(true);
      const last = options.length - 1;
      setActive((index) => (event.key === "ArrowDown" ? (index >= last ? 0 : index + 1) : index <= 0 ? last : index - 1));
    } else if (event.key === "Enter" && shown && active >= 0 && options[active]) {
      event.preventDefault();
      go(options[active].href);
    } else if (event.key === "Escape" && (shown || value)) {
      // Closes the list first, then empties the box; the folded menu's own Escape waits its turn.
      event.preventDefault();
      if (shown) setOpen(false);
      else setValue("");
      setActive(-1);
    }
  };

  // Each section's first option's place among all the options.
  const firsts = sections.map((_, at) => sections.slice(0, at).reduce((sum, section) => sum + section.hits.length, 0));
  const listId = `${id}-list`;
  return (
    <Form method="get" action={QUICK_JUMP_PATH} role="search" aria-label="Quick jump" className="relative px-3 pt-3" onSubmit={leave}>
      <label htmlFor={`${id}-input`} className="sr-only">
        Quick jump
      </label>
      <div className="relative">
        <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted" aria-hidden />
        <input
          ref={inputRef}
          id={`${id}-input`}
          name="q"
          type="search"
          value={value}
          onChange={(event) => {
            setValue(event.target.value);
            setOpen(true);
            setActive(-1);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setOpen(false)}
          onFocus={() => setOpen(true)}
          placeholder="Jump to…"
          maxLength={200}
          autoComplete="off"
          spellCheck={false}
          enterKeyHint="search"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls={listId}
          aria-activedescendant={shown && active >= 0 ? optionId(active) : undefined}
          aria-describedby={`${id}-hint`}
          aria-keyshortcuts="/ Control+K Meta+K"
          className={`${inputClass} pr-9 pl-9`}
        />
        {/* The shortcut, shown where a keyboard is likely, and out of the way of the box's own clear button. */}
        {value ? null : (
          <kbd
            aria-hidden
            className="pointer-events-none absolute top-1/2 right-2 hidden -translate-y-1/2 rounded border border-line px-1.5 font-mono text-xs text-muted lg:block"
          >
            /
          </kbd>
        )}
      </div>
      <p id={`${id}-hint`} className="sr-only">
        Finds {quickJumpAsks(kinds)}. Press slash or Control K to come back here from any page.
      </p>
      <p role="status" className="sr-only">
        {status}
      </p>
      <div
        id={listId}
        role="listbox"
        aria-label="Quick jump results"
        hidden={!shown}
        className="absolute top-full left-3 z-50 mt-1 max-h-[60dvh] w-[min(28rem,calc(100vw-1.5rem))] overflow-y-auto rounded-lg border border-line bg-panel p-1 shadow-xl shadow-black/40"
      >
        {sections.map((section, at) => (
          <div key={section.kind} role="group" aria-labelledby={`${id}-${section.kind}`}>
            <div
              role="presentation"
              id={`${id}-${section.kind}`}
              className="px-3 pt-2 pb-1 text-xs font-semibold tracking-wider text-muted uppercase"
            >
              {section.heading}
            </div>
            {section.hits.map((hit, within) => {
              const mine = firsts[at]! + within;
              return (
                <div
                  key={hit.href}
                  id={optionId(mine)}
                  role="option"
                  aria-selected={active === mine}
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => go(hit.href)}
                  onMouseMove={() => setActive(mine)}
                  className={`cursor-pointer rounded-md px-3 py-2 text-sm ${active === mine ? "bg-accent/15 text-white" : "text-zinc-200"}`}
                >
                  <span className="block truncate font-medium">{hit.label}</span>
                  <span className="block truncate text-xs text-muted">{hit.detail}</span>
                </div>
              );
            })}
          </div>
        ))}
        {shown ? (
          <div
            id={optionId(options.length - 1)}
            role="option"
            aria-selected={active === options.length - 1}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => go(options.at(-1)!.href)}
            onMouseMove={() => setActive(options.length - 1)}
            className={`cursor-pointer rounded-md px-3 py-2 text-sm ${active === options.length - 1 ? "bg-accent/15 text-white" : "text-accent-soft"}`}
          >
            {current && count === 0 && fetcher.state === "idle"
              ? `Nothing found for “${asked}”: open the search page`
              : `See every result for “${asked}”`}
          </div>
        ) : null}
      </div>
    </Form>
  );
}
